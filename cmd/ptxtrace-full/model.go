package main

import (
	"context"
	"strings"

	"github.com/ptxtrace/ptxtrace/model"
	"github.com/ptxtrace/ptxtrace/model/specfile"
	"github.com/urfave/cli/v2"
)

type modelShowOptions struct {
	streams
	Spec string // preset name or YAML/JSON file
}

func newModelCommand() *cli.Command {
	return &cli.Command{
		Name:  "model",
		Usage: "inspect the built-in GPU model's specs",
		Subcommands: []*cli.Command{
			{
				Name:      "show",
				Usage:     "print a resolved model spec as YAML",
				ArgsUsage: "NAME|FILE",
				Description: "show prints the spec the model would use for NAME, a preset (" +
					strings.Join(model.PresetNames(), ", ") + "),\n" +
					"or FILE, a YAML or JSON file naming a preset in \"base:\" (default gtx480)\n" +
					"and overriding any of its fields. The output is itself a valid spec file.\n" +
					"An invalid spec is reported with the field it concerns.",
				OnUsageError: onUsageError,
				Action: func(c *cli.Context) error {
					if c.NArg() != 1 {
						return usagef("model show: want one preset name or file, got %d arguments", c.NArg())
					}
					return runModelShow(c.Context, modelShowOptions{streams: streamsOf(c), Spec: c.Args().First()})
				},
			},
		},
		Action: func(c *cli.Context) error {
			if c.Args().Present() {
				return usagef("model: unknown subcommand %q (see 'ptxtrace model --help')", c.Args().First())
			}
			return usagef("model: no subcommand given (see 'ptxtrace model --help')")
		},
	}
}

func runModelShow(_ context.Context, o modelShowOptions) error {
	s, err := specfile.Load(o.Spec)
	if err != nil {
		return err
	}
	y, err := specfile.Marshal(s)
	if err != nil {
		return err
	}
	_, err = o.Stdout.Write(y)
	return err
}
