package main

import (
	"io"
	"text/tabwriter"
)

// The command's tables: every aligned text table ptxtrace prints goes
// through one of these two, so that columns are padded alike (two spaces
// between columns; tabwidth is moot with a space pad character).

// newTable returns a writer of left-aligned columns (names, paths, words).
func newTable(w io.Writer) *tabwriter.Writer {
	return tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
}

// newNumTable returns a writer of right-aligned columns (numbers).
// A row's cells must each end with a tab for the last column to align.
func newNumTable(w io.Writer) *tabwriter.Writer {
	return tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
}
