package wait

import "strconv"

func trimFloat(f float64) string {
	return strconv.FormatFloat(f, 'f', 3, 64)
}
