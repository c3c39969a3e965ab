package main

import (
	"fmt"
	"strings"

	"github.com/ptxtrace/ptxtrace/experiments/transfer"
	"github.com/ptxtrace/ptxtrace/model"
	"github.com/urfave/cli/v2"
)

type transferOptions struct {
	streams
	Model, Min, Max string
	CSV, Recommend  bool
	SVG             string
}

// errNoGPUBackend is --gpu's answer: measurement needs a GPU backend,
// which this build does not have (docs/transfer.md, "On a real GPU").
const errNoGPUBackend = "transfer --gpu: no GPU backend is available in this build; measuring cuMemcpy, mapped-window and copy-kernel transfers on a real GPU is pending (docs/transfer.md). The model's tables need no GPU: drop --gpu"

func newTransferCommand() *cli.Command {
	return &cli.Command{
		Name:      "transfer",
		Usage:     "host↔device transfer advisor (seed 001): time per method and size, crossovers, recommendations",
		ArgsUsage: "[--model gtx480|rtx3080|a100|h100] [--min 8B] [--max 64MB] [--csv | --recommend] [--svg FILE]",
		Description: "transfer sweeps the transfer model of a GPU preset over sizes (powers of two,\n" +
			"default 8B … 64MB), both directions, the methods dma, iorw, hub, gpc1, gpc4 and the\n" +
			"seed's eight pairs of two transfers (dma+dma, iorw+iorw, dma|hub … iorw|gpc4), and\n" +
			"prints the time table (fastest marked *), the crossovers and a recommendation per\n" +
			"size band. --svg writes a log-log chart with the crossovers marked (docs/transfer.md).\n" +
			"--gpu (measure on a real GPU) is refused: no GPU backend exists yet.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "model", Value: "gtx480", Usage: "GPU preset `NAME`: " + strings.Join(model.PresetNames(), ", ")},
			&cli.StringFlag{Name: "min", Value: "8", Usage: "smallest size, `BYTES` (suffix B, KB, MB, GB)"},
			&cli.StringFlag{Name: "max", Value: "64MB", Usage: "largest size, `BYTES`"},
			&cli.BoolFlag{Name: "csv", Usage: "print CSV rows (model,direction,kind,method,bytes,time_ns,fastest)", DisableDefaultText: true},
			&cli.BoolFlag{Name: "recommend", Usage: "print only the recommendation table", DisableDefaultText: true},
			&cli.StringFlag{Name: "svg", Usage: "write the log-log chart to `FILE`"},
			&cli.BoolFlag{Name: "gpu", Usage: "measure on a real GPU (not available: refused)", DisableDefaultText: true},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 0 {
				return usagef("transfer: takes no arguments (see 'ptxtrace transfer --help')")
			}
			if c.Bool("csv") && c.Bool("recommend") {
				return usagef("transfer: --csv and --recommend exclude each other")
			}
			if c.Bool("gpu") {
				return fmt.Errorf("%s", errNoGPUBackend)
			}
			return runTransfer(transferOptions{streams: streamsOf(c), Model: c.String("model"), Min: c.String("min"),
				Max: c.String("max"), CSV: c.Bool("csv"), Recommend: c.Bool("recommend"), SVG: c.String("svg")})
		},
	}
}

func runTransfer(o transferOptions) error {
	ts, ok := model.TransferPreset(o.Model)
	if !ok {
		return usagef("transfer: --model %q: no transfer parameters (want one of %s)", o.Model, strings.Join(model.PresetNames(), ", "))
	}
	lo, err := transfer.ParseBytes(o.Min)
	if err != nil {
		return usagef("transfer: --min: %v", err)
	}
	hi, err := transfer.ParseBytes(o.Max)
	if err != nil {
		return usagef("transfer: --max: %v", err)
	}
	sizes := transfer.Sizes(lo, hi)
	if len(sizes) == 0 {
		return usagef("transfer: no power of two between --min %s and --max %s", o.Min, o.Max)
	}
	sw, err := transfer.Run(ts, sizes)
	if err != nil {
		return err
	}
	if o.SVG != "" {
		if err := writeSVG(o.SVG, sw.Chart); err != nil {
			return err
		}
	}
	switch {
	case o.CSV:
		return sw.WriteCSV(o.Stdout)
	case o.Recommend:
		return sw.WriteRecommendations(o.Stdout)
	}
	return sw.WriteTable(o.Stdout)
}
