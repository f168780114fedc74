package main

import (
	"strings"

	"github.com/urfave/cli/v2"
	"github.com/xrash/smetrics"
)

// closest is the candidate nearest to typed (Jaro-Winkler, as urfave/cli's
// own suggestions), or "" when none is near enough to be a likely typo.
func closest(typed string, candidates []string) string {
	best, score := "", 0.0
	for _, c := range candidates {
		if s := smetrics.JaroWinkler(c, typed, 0.7, 4); s > score {
			best, score = c, s
		}
	}
	if score < 0.8 {
		return ""
	}
	return best
}

// didYouMean is ` (did you mean "X"?)` for the nearest candidate, or "".
func didYouMean(typed string, candidates []string) string {
	if c := closest(typed, candidates); c != "" {
		return ` (did you mean "` + c + `"?)`
	}
	return ""
}

// flagSuggestion reads urfave/cli's "flag provided but not defined: -x"
// and suggests the command's nearest flag.
func flagSuggestion(err error, flags []cli.Flag) string {
	_, typed, ok := strings.Cut(err.Error(), "flag provided but not defined: ")
	if !ok {
		return ""
	}
	typed = strings.TrimLeft(typed, "-")
	var names []string
	for _, f := range flags {
		for _, n := range f.Names() {
			if len(n) > 1 {
				names = append(names, n)
			}
		}
	}
	if c := closest(typed, names); c != "" {
		return " (did you mean --" + c + "?)"
	}
	return ""
}
