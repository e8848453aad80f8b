package bench

import "testing"

func TestSummarize(t *testing.T) {
	tests := []struct {
		name string
		xs   []float64
		want Stat
		text string
	}{
		{name: "empty", xs: nil, want: Stat{}, text: "–"},
		{name: "one", xs: []float64{2.345}, want: Stat{Median: 2.345, Min: 2.345, Max: 2.345, N: 1}, text: "2.35"},
		{name: "odd count, unsorted", xs: []float64{9, 1, 4}, want: Stat{Median: 4, Min: 1, Max: 9, N: 3}, text: "4.00 (1.00–9.00)"},
		{name: "even count takes the middle mean", xs: []float64{4, 1, 3, 10}, want: Stat{Median: 3.5, Min: 1, Max: 10, N: 4}, text: "3.50 (1.00–10.00)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Summarize(tt.xs)
			if got != tt.want {
				t.Fatalf("Summarize(%v) = %+v, want %+v", tt.xs, got, tt.want)
			}
			if text := got.Format(2); text != tt.text {
				t.Fatalf("Format(2) = %q, want %q", text, tt.text)
			}
		})
	}
}

func TestSummarizeLeavesInputAlone(t *testing.T) {
	xs := []float64{3, 1, 2}
	Summarize(xs)
	if xs[0] != 3 || xs[1] != 1 || xs[2] != 2 {
		t.Fatalf("Summarize sorted its input: %v", xs)
	}
}
