package cliargs

import "strings"

// Suggest returns the candidate a mistyped word most likely meant, or ""
// when none is close enough to say "did you mean". Close is cobra's rule,
// which kubectl and flux users meet every day: few edits (a swapped pair of
// letters is one; one edit for a word of up to three letters, two up to
// eight, three beyond), or the one candidate that starts with the word.
// Case is ignored; the first of equally close candidates wins.
func Suggest(word string, candidates []string) string {
	w := strings.ToLower(word)
	if len(w) < 2 {
		return ""
	}
	limit := 3
	switch {
	case len(w) <= 3:
		limit = 1
	case len(w) <= 8:
		limit = 2
	}
	best, bestDistance := "", limit+1
	var prefixed []string
	for _, c := range candidates {
		lc := strings.ToLower(c)
		if lc == w {
			return ""
		}
		if d := editDistance(w, lc); d < bestDistance {
			best, bestDistance = c, d
		}
		if strings.HasPrefix(lc, w) {
			prefixed = append(prefixed, c)
		}
	}
	if best == "" && len(prefixed) == 1 {
		return prefixed[0]
	}
	return best
}

// editDistance is the optimal string alignment distance between a and b:
// insertions, deletions, substitutions, and swaps of adjacent letters.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
