package main

import (
	"fmt"
	"io"
	"strings"
)

// progress draws a one-line progress bar on w ("\r" updates), for the
// batch commands (convert, sweep); `run` has its own rate line
// (runprogress.go).
type progress struct {
	w     io.Writer
	label string
	total int
	drawn bool
}

func newProgress(w io.Writer, label string, total int) *progress {
	return &progress{w: w, label: label, total: total}
}

// update redraws the bar for done of total items, then suffix.
func (p *progress) update(done int, suffix string) {
	const width = 30
	n := width * done / max(p.total, 1)
	bar := strings.Repeat("#", n) + strings.Repeat(".", width-n)
	fmt.Fprintf(p.w, "\r%s [%s] %d/%d%s", p.label, bar, done, p.total, suffix)
	p.drawn = true
}

// printf prints a message line above the bar.
func (p *progress) printf(format string, args ...any) {
	if p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
	}
	fmt.Fprintf(p.w, format+"\n", args...)
}

func (p *progress) finish(summary string) {
	if p.drawn {
		fmt.Fprintln(p.w)
	}
	fmt.Fprintf(p.w, "%s: %s\n", p.label, summary)
}
