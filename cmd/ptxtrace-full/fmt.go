package main

import (
	"github.com/ptxtrace/ptxtrace/internal/quickcmd"
	"github.com/urfave/cli/v2"
)

func newFmtCommand() *cli.Command {
	return &cli.Command{
		Name:      "fmt",
		Usage:     "parse PTX files and print them back",
		ArgsUsage: "[FILE...]",
		Description: "fmt parses each FILE and prints it to stdout. By default the output is the\n" +
			"input byte for byte (a round-trip check of the parser); with --canonical\n" +
			"it is re-laid out in ptxtrace's canonical style. Without FILE, or with\n" +
			"FILE \"-\", it reads standard input. Flags may stand before or after the files.\n\n" +
			"With -w each file is rewritten in place, atomically and keeping its mode,\n" +
			"and only when its contents change. A file with parse errors is never\n" +
			"written: its errors are printed as file:line:col: message lines, the\n" +
			"remaining files are still processed and the exit status is 1.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "canonical", Usage: "print in canonical layout", DisableDefaultText: true},
			&cli.BoolFlag{Name: "w", Usage: "write the result back to each file instead of stdout", DisableDefaultText: true},
			&cli.BoolFlag{Name: "all-errors", Usage: "report all parse errors, not only the first 10", DisableDefaultText: true},
		},
		Action: func(c *cli.Context) error {
			return quickcmd.RunFmt(c.Context, quickcmd.FmtOptions{
				Streams:   streamsOf(c),
				Canonical: c.Bool("canonical"),
				Write:     c.Bool("w"),
				AllErrors: c.Bool("all-errors"),
				Files:     c.Args().Slice(),
			})
		},
	}
}
