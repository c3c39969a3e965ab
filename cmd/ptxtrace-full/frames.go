package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"

	"github.com/ptxtrace/ptxtrace/frames"
	"github.com/ptxtrace/ptxtrace/internal/atomicfile"
	"github.com/urfave/cli/v2"
)

func newFramesCommand() *cli.Command {
	return &cli.Command{
		Name:      "frames",
		Usage:     "frame-end estimation and GPU deep-sleep control on Android traces (seed 004)",
		ArgsUsage: "TRACE...",
		Description: "frames reads systrace HTML, atrace/ftrace text or Perfetto traces, folds them\n" +
			"into display frames (VSYNC counter, or --period), counts app draw completions\n" +
			"(eglSwapBuffers, else queueBuffer) per frame, ranks seed 004's 42 estimators by\n" +
			"index = mean score − spread, simulates the GPU control (fluctuation, wake-in-frame\n" +
			"and NDK rules) and sweeps the deep-sleep threshold and the fluctuation rule.\n" +
			"Power-model defaults are assumptions (docs/frames.md).",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "estimator", Usage: "control's estimator `NAME` (last, equal-N, mean-N-ROUND, wma-N-ROUND)", Value: "mean-3-ceil"},
			&cli.Float64Flag{Name: "threshold", Usage: "deep-sleep threshold in `MS` of frame left", Value: 8},
			&cli.IntFlag{Name: "fluct-n", Usage: "fluctuation window `N` (0: off)", Value: 3},
			&cli.IntFlag{Name: "fluct-m", Usage: "fluctuation misses `M` in the window", Value: 1},
			&cli.IntFlag{Name: "end-hits", Usage: "consecutive `HITS` ending a fluctuation", Value: 2},
			&cli.IntFlag{Name: "ndk-frames", Usage: "`FRAMES` in a row with GPU work and no draws marking an NDK app (0: off)", Value: 2},
			&cli.Float64Flag{Name: "period", Usage: "frame period in `MS` when a trace has no VSYNC counter (default 60 Hz)"},
			&cli.Float64Flag{Name: "standby-mw", Usage: "GPU standby power in `MW` (assumed)", Value: frames.DefaultPower.StandbyMW},
			&cli.Float64Flag{Name: "deep-mw", Usage: "GPU deep-sleep power in `MW` (assumed)", Value: frames.DefaultPower.DeepMW},
			&cli.Float64Flag{Name: "transition-uj", Usage: "energy in `UJ` of one deep-sleep enter+exit (assumed)", Value: frames.DefaultPower.TransitionUJ},
			&cli.Float64Flag{Name: "wake-us", Usage: "deep-sleep wake latency in `US` (assumed)", Value: float64(frames.DefaultPower.WakeLatency) / 1e3},
			&cli.StringFlag{Name: "csv", Usage: "write ranking/control/thresholds/fluctuation/frames CSV into `DIR`"},
			&cli.StringFlag{Name: "json", Usage: "write the report as JSON to `FILE`"},
			&cli.StringFlag{Name: "svg", Usage: "write SVG charts into `DIR`"},
			&cli.StringFlag{Name: "perfetto", Usage: "write a Perfetto trace overlaying frames, estimated ends and sleeps to `FILE` (one TRACE)"},
		},
		OnUsageError: onUsageError,
		Action:       framesAction,
	}
}

func msFlag(c *cli.Context, name string) (int64, error) {
	v := c.Float64(name)
	if math.IsNaN(v) || v < 0 || v > 1e6 {
		return 0, usagef("frames: --%s %v out of range", name, v)
	}
	return int64(math.Round(v * 1e6)), nil
}

func framesAction(c *cli.Context) error {
	s := streamsOf(c)
	paths := c.Args().Slice()
	if len(paths) == 0 {
		return usagef("frames: want at least one TRACE")
	}
	if c.String("perfetto") != "" && len(paths) != 1 {
		return usagef("frames: --perfetto takes exactly one TRACE")
	}
	est, err := frames.ParseEstimator(c.String("estimator"))
	if err != nil {
		return usagef("frames: %v", err)
	}
	ctl := frames.DefaultControl()
	ctl.Estimator = est
	ctl.FluctN, ctl.FluctM, ctl.EndHits, ctl.NDKFrames = c.Int("fluct-n"), c.Int("fluct-m"), c.Int("end-hits"), c.Int("ndk-frames")
	if ctl.Threshold, err = msFlag(c, "threshold"); err != nil {
		return err
	}
	period, err := msFlag(c, "period")
	if err != nil {
		return err
	}
	ctl.Power = frames.PowerModel{StandbyMW: c.Float64("standby-mw"), DeepMW: c.Float64("deep-mw"),
		TransitionUJ: c.Float64("transition-uj"), WakeLatency: int64(math.Round(c.Float64("wake-us") * 1e3))}
	var ts []*frames.Trace
	for _, p := range paths {
		t, err := frames.ReadFile(p, frames.BuildOptions{Period: period})
		if err != nil {
			return err
		}
		t.Name = filepath.Base(p)
		ts = append(ts, t)
	}
	rep, err := frames.Analyze(ts, frames.Options{Control: ctl, FluctLo: 3, FluctHi: 30})
	if err != nil {
		return usagef("frames: %v", err)
	}
	if err := rep.WriteText(s.Stdout); err != nil {
		return err
	}
	if dir := c.String("csv"); dir != "" {
		files, err := rep.CSV()
		if err != nil {
			return err
		}
		if err := writeFiles(dir, files); err != nil {
			return err
		}
	}
	if p := c.String("json"); p != "" {
		b, err := rep.JSON()
		if err != nil {
			return err
		}
		if err := writeBytes(p, append(b, '\n')); err != nil {
			return err
		}
	}
	if dir := c.String("svg"); dir != "" {
		charts, err := rep.Charts()
		if err != nil {
			return err
		}
		files := map[string][]byte{}
		for _, ch := range charts {
			files[ch.Name] = ch.SVG
		}
		if err := writeFiles(dir, files); err != nil {
			return err
		}
	}
	if p := c.String("perfetto"); p != "" {
		return atomicfile.WriteFile(p, 0o644, func(w io.Writer) error {
			// A Perfetto input is copied first so the overlay lands on
			// its timeline; other formats get the overlay alone.
			f, err := os.Open(paths[0])
			if err != nil {
				return err
			}
			defer f.Close()
			head := make([]byte, 512)
			n, _ := io.ReadFull(f, head)
			if frames.Sniff(head[:n]) == frames.FormatPerfetto {
				if _, err := w.Write(head[:n]); err != nil {
					return err
				}
				if _, err := io.Copy(w, f); err != nil {
					return err
				}
			}
			return rep.WritePerfetto(w, 0)
		})
	}
	return nil
}

// writeFiles writes files (name → bytes) into dir, in name order.
func writeFiles(dir string, files map[string][]byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := writeFile(dir, n, files[n]); err != nil {
			return fmt.Errorf("%s: %w", n, err)
		}
	}
	return nil
}
