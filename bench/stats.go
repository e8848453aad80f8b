package bench

import (
	"fmt"
	"slices"
)

// Stat summarizes repeated measurements of one quantity.
type Stat struct {
	Median, Min, Max float64
	N                int
}

// Summarize returns the median, minimum and maximum of xs. The median of an
// even count is the mean of the two middle values.
func Summarize(xs []float64) Stat {
	if len(xs) == 0 {
		return Stat{}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	mid := len(s) / 2
	med := s[mid]
	if len(s)%2 == 0 {
		med = (s[mid-1] + s[mid]) / 2
	}
	return Stat{Median: med, Min: s[0], Max: s[len(s)-1], N: len(s)}
}

// Format renders the statistic with the given number of decimals: the
// median, then "min–max" in parentheses when there is more than one value,
// and "–" when there is none.
func (s Stat) Format(decimals int) string {
	switch s.N {
	case 0:
		return "–"
	case 1:
		return fmt.Sprintf("%.*f", decimals, s.Median)
	}
	return fmt.Sprintf("%.*f (%.*f–%.*f)", decimals, s.Median, decimals, s.Min, decimals, s.Max)
}
