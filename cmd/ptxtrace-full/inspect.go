package main

import (
	"github.com/ptxtrace/ptxtrace/internal/quickcmd"
	"github.com/urfave/cli/v2"
)

func newInspectCommand() *cli.Command {
	return &cli.Command{
		Name:      "inspect",
		Usage:     "show kernels, parameters, registers and memory accesses of PTX files",
		ArgsUsage: "[--json] FILE...",
		Description: "inspect parses each FILE and prints a summary of the module: PTX version,\n" +
			"target and address size, and for every .entry/.func its parameters,\n" +
			"declared registers by type, static shared/local/const memory, performance\n" +
			"directives, instruction and basic-block counts, memory accesses counted by\n" +
			"state space and kind, and each access with its PTX line and the source\n" +
			"position of the .loc in effect. Module-level .shared/.const variables are\n" +
			"counted for every function that uses them, directly or through calls.\n\n" +
			"With --json the summary is printed as JSON (one object for one file, an\n" +
			"array for several). Without FILE, or with FILE \"-\", it reads standard\n" +
			"input. --json and --all-errors may also follow the files. Parse errors\n" +
			"are printed as file:line:col: message lines and the exit status is 1.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print the summary as JSON", DisableDefaultText: true},
			&cli.BoolFlag{Name: "all-errors", Usage: "report all parse errors, not only the first 10", DisableDefaultText: true},
		},
		Action: func(c *cli.Context) error {
			o := quickcmd.InspectOptions{
				Streams:   streamsOf(c),
				JSON:      c.Bool("json"),
				AllErrors: c.Bool("all-errors"),
			}
			// flags may stand anywhere (normalizeArgs); "--" ends them
			o.Files = c.Args().Slice()
			return quickcmd.RunInspect(c.Context, o)
		},
	}
}
