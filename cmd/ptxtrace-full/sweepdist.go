package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ptxtrace/ptxtrace/sweep"
	"github.com/urfave/cli/v2"
)

// shardFlags are --shard and --shards of sweep run and convert.
func shardFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "shard", Usage: "run shard `I/N` (entries k with k mod N = I), or auto: from Slurm's array or Kubernetes' completion index"},
		&cli.IntFlag{Name: "shards", Usage: "`N` for --shard auto (required with Kubernetes; checked against Slurm's array)"},
	}
}

// shardOf resolves --shard / --shards; a bad value is a usage error.
func shardOf(c *cli.Context, cmd string) (sweep.Shard, error) {
	s, n := c.String("shard"), c.Int("shards")
	switch {
	case s == "" && c.IsSet("shard"):
		return sweep.Shard{}, usagef("%s: --shard wants I/N or auto", cmd)
	case s == "":
		if c.IsSet("shards") {
			return sweep.Shard{}, usagef("%s: --shards goes with --shard auto", cmd)
		}
		return sweep.Whole(), nil
	case s == "auto":
		if n < 0 {
			return sweep.Shard{}, usagef("%s: --shards must be ≥ 1", cmd)
		}
		sh, err := sweep.AutoShard(os.Getenv, n)
		if err != nil {
			return sweep.Shard{}, usagef("%s: %v", cmd, err)
		}
		return sh, nil
	}
	if c.IsSet("shards") {
		return sweep.Shard{}, usagef("%s: --shards goes with --shard auto (--shard I/N names N)", cmd)
	}
	sh, err := sweep.ParseShard(s)
	if err != nil {
		return sweep.Shard{}, usagef("%s: --%v", cmd, err)
	}
	return sh, nil
}

func newSweepPlanCommand() *cli.Command {
	return &cli.Command{
		Name:      "plan",
		Usage:     "expand a sweep spec into a plan (JSON lines sorted by content id)",
		ArgsUsage: "SPEC.yaml -o plan.jsonl",
		Description: "plan reads SPEC.yaml (docs/sweep.md) and writes the plan: a header line, then one\n" +
			"canonical config a line with its content id (hash of the config, every input file\n" +
			"and the tool version), sorted by id.",
		Flags:        []cli.Flag{&cli.StringFlag{Name: "o", Usage: "plan `FILE` (- for stdout)", Value: "-"}},
		OnUsageError: onUsageError,
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("sweep plan: expected one spec file")
			}
			spec, err := sweep.ReadSpec(c.Args().First())
			if err != nil {
				return err
			}
			p, err := sweep.MakePlan(spec, "ptxtrace "+version)
			if err != nil {
				return err
			}
			var b bytes.Buffer
			if err := p.Write(&b); err != nil {
				return err
			}
			if o := c.String("o"); o != "-" {
				if err := writeFile(filepath.Dir(o), filepath.Base(o), b.Bytes()); err != nil {
					return err
				}
				fmt.Fprintf(c.App.ErrWriter, "sweep plan: %d entries in %s\n", len(p.Entries), o)
				return nil
			}
			_, err = c.App.Writer.Write(b.Bytes())
			return err
		},
	}
}

func newSweepRunCommand() *cli.Command {
	return &cli.Command{
		Name:      "run",
		Usage:     "run a plan's entries, or one shard of them, into DIR",
		ArgsUsage: "plan.jsonl --out DIR [--shard I/N | --shard auto [--shards N]] [-j N] [--convert parquet]",
		Description: "run executes the shard's entries (all without --shard), -j at a time, each into\n" +
			"DIR/ID/ (result.json, summary.json, run.bundle; part-0.parquet with --convert\n" +
			"parquet) built in DIR/.tmp and renamed into place. Finished entries are skipped,\n" +
			"so a re-run resumes. A failing entry writes DIR/ID.error and the others go on;\n" +
			"the exit status is then 1 and stderr names the failed ids. Usage errors exit 2.",
		Flags: append(shardFlags(),
			&cli.StringFlag{Name: "out", Usage: "output `DIR`"},
			&cli.IntFlag{Name: "j", Usage: "entries in parallel (default GOMAXPROCS); outputs do not depend on it"},
			&cli.StringFlag{Name: "convert", Usage: "also write each bundle as `FORMAT` (parquet)"},
		),
		OnUsageError: onUsageError,
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("sweep run: expected one plan file")
			}
			if c.String("out") == "" {
				return usagef("sweep run: --out DIR is required")
			}
			if cv := c.String("convert"); cv != "" && cv != "parquet" {
				return usagef("sweep run: --convert %q: want parquet", cv)
			}
			sh, err := shardOf(c, "sweep run")
			if err != nil {
				return err
			}
			p, err := sweep.ReadPlan(c.Args().First())
			if err != nil {
				return err
			}
			s := streamsOf(c)
			prog := newSweepProgress(s.Stderr, "sweep run "+sh.String(), time.Now, isTerminal(s.Stderr))
			rep, err := sweep.Run(c.Context, p, sweep.RunOptions{Out: c.String("out"), Shard: sh, Jobs: c.Int("j"),
				Tool: "ptxtrace " + version, Convert: c.String("convert"), Progress: prog.runs, Entry: prog.entry})
			prog.finish()
			if err != nil {
				return err
			}
			fmt.Fprintf(s.Stderr, "sweep run %s: shard %s: %d entries: %d run, %d already done, %d failed\n", sh, sh, rep.Owned, rep.Ran, rep.Skipped, len(rep.Failed))
			for i, id := range rep.Failed {
				fmt.Fprintf(s.Stderr, "sweep run: %s failed: %v\n", id, rep.Errors[i])
			}
			if len(rep.Failed) > 0 {
				fmt.Fprintf(s.Stderr, "sweep run: failed ids: %s\n", strings.Join(rep.Failed, " "))
				return errReported
			}
			return nil
		},
	}
}

func newSweepMergeCommand() *cli.Command {
	return &cli.Command{
		Name:      "merge",
		Usage:     "merge a sweep's results into tables, charts and a report",
		ArgsUsage: "DIR --plan plan.jsonl [-o OUT] [--shards N] [--allow-missing]",
		Description: "merge reads DIR/ID/result.json of every plan entry and writes to OUT (default\n" +
			"DIR/merged) results.csv and results.parquet (one row per entry, plan order) and,\n" +
			"for a vr plan,\n" +
			"sweep vr's sweep.csv, correlations.csv, charts and report.html. Missing or failed\n" +
			"entries are named with the shard of N (--shards) that owns them and make the exit\n" +
			"status 1; with --allow-missing merge writes results.csv of what is there (the vr\n" +
			"tables need every entry) and exits 0.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "plan", Usage: "plan `FILE`"},
			&cli.StringFlag{Name: "o", Usage: "output `DIR` (default DIR/merged)"},
			&cli.IntFlag{Name: "shards", Usage: "shard count `N` the runs used (to name the owner of a missing entry)"},
			&cli.BoolFlag{Name: "allow-missing", Usage: "merge what is there", DisableDefaultText: true},
		},
		OnUsageError: onUsageError,
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 || c.String("plan") == "" {
				return usagef("sweep merge: expected DIR and --plan FILE")
			}
			if c.Int("shards") < 0 {
				return usagef("sweep merge: --shards must be ≥ 1")
			}
			dir := c.Args().First()
			out := c.String("o")
			if out == "" {
				out = filepath.Join(dir, "merged")
			}
			p, err := sweep.ReadPlan(c.String("plan"))
			if err != nil {
				return err
			}
			m, err := sweep.Merge(p, dir)
			if err != nil {
				return err
			}
			s := streamsOf(c)
			for _, g := range m.Gaps {
				owner := ""
				if n := c.Int("shards"); n > 0 {
					owner = ", shard " + sweep.Owner(g.Index, n).String()
				}
				what := "missing"
				if g.Err != "" {
					what = "failed: " + g.Err
				}
				fmt.Fprintf(s.Stderr, "sweep merge: %s (plan entry %d%s) %s\n", g.ID, g.Index, owner, what)
			}
			if len(m.Gaps) > 0 && !c.Bool("allow-missing") {
				fmt.Fprintf(s.Stderr, "sweep merge: %d of %d entries have no result; nothing written (--allow-missing merges the rest)\n", len(m.Gaps), len(p.Entries))
				return errReported
			}
			res, err := m.ResultsCSV()
			if err != nil {
				return err
			}
			pqb, err := m.ResultsParquet()
			if err != nil {
				return err
			}
			files := []sweep.File{{Name: "results.csv", Data: res}, {Name: "results.parquet", Data: pqb}}
			if p.VR != nil && len(m.Gaps) == 0 && len(p.Entries) > 0 {
				tab, err := m.VRTable()
				if err != nil {
					return err
				}
				vf, err := sweep.VRFiles(tab, p.Tool+", model "+tab.Model)
				if err != nil {
					return err
				}
				files = append(files, vf...)
			}
			if err := writeSweepFiles(out, files); err != nil {
				return err
			}
			fmt.Fprintf(s.Stderr, "sweep merge: %d of %d entries; %d files in %s\n", len(p.Entries)-len(m.Gaps), len(p.Entries), len(files), out)
			return nil
		},
	}
}

func newSweepScriptCommand() *cli.Command {
	return &cli.Command{
		Name:      "script",
		Usage:     "write Slurm array or Kubernetes Indexed Job scripts for a plan (never submits)",
		ArgsUsage: "plan.jsonl --scheduler slurm|k8s --shards N --out DIR [--max-parallel M] [-o SCRIPT_DIR]",
		Description: "script writes, into -o (default .), for slurm: sweep-array.sbatch (an array of N\n" +
			"tasks, task I running shard I/N), sweep-merge.sbatch (the merge) and submit.sh\n" +
			"(sbatch the array, then the merge with --dependency=afterok); for k8s:\n" +
			"sweep-job.yaml (an Indexed Job of N completions, backoffLimitPerIndex 2, a usage\n" +
			"error failing its index) and sweep-merge-job.yaml. The plan and --out paths are\n" +
			"written as given: they must name the same files on every node (shared filesystem);\n" +
			"the plan is checked when it exists here.\n" +
			"Slurm's default MaxArraySize (1001) bounds N unless --max-array-size says otherwise.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "scheduler", Usage: "`slurm` or k8s"},
			&cli.IntFlag{Name: "shards", Usage: "number of shards `N` (array tasks, completion indexes)"},
			&cli.StringFlag{Name: "out", Usage: "the runs' output `DIR`, as the jobs see it"},
			&cli.IntFlag{Name: "max-parallel", Usage: "at most `M` tasks at a time (0: the scheduler's choice)"},
			&cli.IntFlag{Name: "j", Usage: "entries in parallel within each task (default 1)"},
			&cli.StringFlag{Name: "o", Usage: "write the scripts into `SCRIPT_DIR`", Value: "."},
			&cli.StringFlag{Name: "binary", Usage: "`PATH` of ptxtrace on the nodes", Value: "ptxtrace"},
			&cli.StringFlag{Name: "name", Usage: "job `NAME`", Value: "ptxtrace-sweep"},
			&cli.IntFlag{Name: "max-array-size", Usage: "the cluster's Slurm `MaxArraySize`", Value: sweep.DefaultMaxArraySize},
			&cli.StringFlag{Name: "image", Usage: "k8s: container `IMAGE` holding ptxtrace"},
			&cli.StringFlag{Name: "claim", Usage: "k8s: PersistentVolumeClaim `NAME` holding the plan and --out"},
			&cli.StringFlag{Name: "mount", Usage: "k8s: where the claim is mounted (`PATH`)", Value: "/data"},
		},
		OnUsageError: onUsageError,
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("sweep script: expected one plan file")
			}
			plan := c.Args().First()
			// The plan path is the jobs'; check the plan when it is here too.
			if _, err := os.Stat(plan); err == nil {
				if _, err := sweep.ReadPlan(plan); err != nil {
					return err
				}
			}
			o := sweep.ScriptOptions{Plan: plan, Out: c.String("out"), Shards: c.Int("shards"), MaxParallel: c.Int("max-parallel"),
				Jobs: c.Int("j"), Binary: c.String("binary"), Name: c.String("name"), MaxArraySize: c.Int("max-array-size"),
				Image: c.String("image"), Claim: c.String("claim"), Mount: c.String("mount")}
			var files []sweep.File
			var err error
			switch c.String("scheduler") {
			case "slurm":
				files, err = sweep.SlurmScripts(o)
			case "k8s":
				files, err = sweep.K8sManifests(o)
			default:
				return usagef("sweep script: --scheduler slurm or k8s")
			}
			if err != nil {
				return usagef("sweep script: %v", err)
			}
			if err := writeSweepFiles(c.String("o"), files); err != nil {
				return err
			}
			for _, f := range files {
				fmt.Fprintln(c.App.Writer, filepath.Join(c.String("o"), f.Name))
			}
			return nil
		},
	}
}
