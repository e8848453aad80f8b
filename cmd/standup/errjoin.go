package main

import (
	"errors"
	"strings"
)

// joinLines joins errors one per line, each already naming its object.
func joinLines(errs []error) error {
	msgs := make([]string, len(errs))
	for i, e := range errs {
		msgs[i] = e.Error()
	}
	return errors.New(strings.Join(msgs, "\n"))
}
