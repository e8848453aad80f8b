package wait

import (
	"strconv"
	"time"
)

// formatSeconds writes d as seconds with exactly three decimals, to the
// millisecond ("1.500", "0.000"): how Duration marshals into JSON, the
// same width for every value.
func formatSeconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', 3, 64)
}
