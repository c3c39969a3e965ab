package main

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ptxtrace/ptxtrace/samples/catalog"
	"github.com/urfave/cli/v2"
)

func newSamplesCommand() *cli.Command {
	return &cli.Command{
		Name:  "samples",
		Usage: "list or extract the embedded sample kernels",
		Description: "samples gives access to the kernels compiled into the binary (package\n" +
			"samples/catalog): the ten samples, the held-out kernels of the accuracy\n" +
			"study and the tensor-core samples (GROUP samples, heldout, modern), each with\n" +
			"its .cu source (when it has one), its PTX and a ready launch spec.\n" +
			"  ptxtrace samples list               one line per sample: name, group, kernels, description\n" +
			"  ptxtrace samples extract [NAME] [-o DIR]\n" +
			"                                      write NAME's files (all samples without NAME)\n" +
			"                                      to DIR/<name>/ (default DIR: the current directory),\n" +
			"                                      with a ready launch spec DIR/<name>/launch.yaml:\n" +
			"  ptxtrace run DIR/vecadd/vecadd.sm_52.ptx --launch DIR/vecadd/launch.yaml",
		Subcommands: []*cli.Command{
			{
				Name:  "list",
				Usage: "list the embedded samples",
				Action: func(c *cli.Context) error {
					if c.Args().Present() {
						return usagef("samples list takes no arguments, got %q", c.Args().First())
					}
					return listSamples(streamsOf(c).Stdout)
				},
			},
			{
				Name:      "extract",
				Usage:     "write a sample's source and PTX files to a directory",
				ArgsUsage: "[NAME]",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "o", Usage: "write into `DIR` (created if needed)", Value: "."},
				},
				Action: func(c *cli.Context) error {
					dir, rest := c.String("o"), c.Args().Slice() // flags anywhere (normalizeArgs)
					if len(rest) > 1 {
						return usagef("samples extract: want at most one NAME, got %d arguments", len(rest))
					}
					name := ""
					if len(rest) == 1 {
						name = rest[0]
					}
					return extractSamples(streamsOf(c), name, dir)
				},
			},
		},
	}
}

func listSamples(w io.Writer) error {
	tw := newTable(w)
	fmt.Fprintln(tw, "NAME\tGROUP\tKERNELS\tDESCRIPTION")
	for _, e := range catalog.List() {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", e.Name, e.Group, strings.Join(e.Kernels, ","), e.Description)
	}
	return tw.Flush()
}

// extractSamples writes the files of the sample name ("" = every sample of
// every group) under dir/<name>/, each with its launch spec, and lists them
// on stderr.
func extractSamples(s streams, name, dir string) error {
	if dir == "" || dir == "-" {
		return usagef("samples extract: -o names a directory")
	}
	list := catalog.List()
	if name != "" {
		e, ok := catalog.Lookup(name)
		if !ok {
			var names []string
			for _, x := range list {
				names = append(names, x.Name)
			}
			return usagef("samples extract: unknown sample %q (have %s)", name, strings.Join(names, ", "))
		}
		list = []catalog.Entry{e}
	}
	n := 0
	for _, e := range list {
		spec, hasSpec := e.Spec()
		files := e.Files
		specPath := path.Join(e.Name, "launch.yaml")
		if hasSpec && !slices.Contains(files, specPath) {
			files = append(files[:len(files):len(files)], specPath)
		}
		for _, p := range files {
			var data []byte
			var err error
			if p == specPath && hasSpec {
				data = spec
			} else if data, err = fs.ReadFile(e.FS, p); err != nil {
				return err
			}
			out := filepath.Join(dir, filepath.FromSlash(path.Clean(p)))
			if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
				return err
			}
			if err := writeBytes(out, data); err != nil {
				return err
			}
			n++
		}
	}
	fmt.Fprintf(s.Stderr, "ptxtrace: extracted %d files of %d sample(s) to %s\n", n, len(list), dir)
	return nil
}
