package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ptxtrace/ptxtrace/model"
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

// loadSpec resolves a preset name or a spec file.
func loadSpec(arg string) (model.Spec, error) {
	if s, ok := model.Preset(arg); ok {
		return s, nil
	}
	data, err := readCapped(arg, "model spec", maxSpecBytes)
	if err != nil {
		if os.IsNotExist(err) && !strings.ContainsAny(arg, "./\\") {
			return model.Spec{}, fmt.Errorf("unknown model %q: not a preset (%s) nor a file",
				arg, strings.Join(model.PresetNames(), ", "))
		}
		return model.Spec{}, err
	}
	s, err := model.ParseSpec(data)
	if err != nil {
		return model.Spec{}, fmt.Errorf("%s: %w", arg, err)
	}
	if !bytesHasKey(data, "name") {
		// an override file is reported by its own name, not its base preset's
		s.Name = filepath.Base(arg)
	}
	return s, nil
}

func runModelShow(_ context.Context, o modelShowOptions) error {
	s, err := loadSpec(o.Spec)
	if err != nil {
		return err
	}
	y, err := s.YAML()
	if err != nil {
		return err
	}
	_, err = o.Stdout.Write(y)
	return err
}
