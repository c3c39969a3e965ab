package main

import (
	"context"
	"fmt"

	"github.com/ptxtrace/ptxtrace/instrument"
	"github.com/ptxtrace/ptxtrace/instrument/cudatool"
	"github.com/ptxtrace/ptxtrace/internal/readcap"
	"github.com/urfave/cli/v2"
)

type verifyOptions struct {
	streams
	File     string
	Manifest string
	Arch     string
	SASS     bool
}

func newVerifyCommand() *cli.Command {
	return &cli.Command{
		Name:      "verify",
		Usage:     "check instrumented PTX: probe order in the final SASS",
		ArgsUsage: "--sass OUT.ptx",
		Description: "verify --sass compiles OUT.ptx with ptxas (for --arch, default the file's\n" +
			"target), disassembles it with nvdisasm (or cuobjdump -sass) and checks, for\n" +
			"every end probe listed in OUT.probes.json, that its timer read comes after\n" +
			"the MEMBAR (fence probes) or after the predicated consumer store (dummy\n" +
			"probes) in the SASS. It prints one line per probe and exits 1 if any probe\n" +
			"is out of order or cannot be found.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "sass", Usage: "check the probe order in the compiled SASS", DisableDefaultText: true},
			&cli.StringFlag{Name: "arch", Usage: "compile for `sm_XX` (default: the file's .target)"},
			&cli.StringFlag{Name: "manifest", Usage: "manifest `FILE` (default: OUT.probes.json next to OUT.ptx)"},
		},
		Action: func(c *cli.Context) error {
			args := c.Args().Slice()
			if len(args) != 1 {
				return usagef("verify: want exactly one instrumented FILE.ptx")
			}
			if !c.Bool("sass") {
				return usagef("verify: nothing to check: give --sass")
			}
			return runVerify(c.Context, verifyOptions{streams: streamsOf(c), File: args[0],
				Manifest: c.String("manifest"), Arch: c.String("arch"), SASS: true})
		},
	}
}

func runVerify(ctx context.Context, o verifyOptions) error {
	src, err := readcap.ReadFile(o.File, "PTX module", maxPTXBytes)
	if err != nil {
		return err
	}
	mpath := o.Manifest
	if mpath == "" {
		mpath = manifestPath(o.File)
	}
	man, err := readManifest(mpath)
	if err != nil {
		return err
	}
	f, err := instrument.ParseOutput(o.File, src)
	if err != nil {
		return err
	}
	tools := cudatool.Find()
	if !tools.CanDisassemble() {
		return fmt.Errorf("verify --sass needs ptxas and nvdisasm (or cuobjdump) on PATH")
	}
	arch := o.Arch
	if arch == "" {
		arch = man.Target
	}
	cubin, _, err := tools.Compile(ctx, o.File, src, arch)
	if err != nil {
		return err
	}
	sass, err := tools.Disassemble(ctx, cubin)
	if err != nil {
		return err
	}
	checks, err := instrument.VerifySASS(f, man, sass)
	if err != nil {
		return fmt.Errorf("%s: %w", o.File, err)
	}
	tw := newTable(o.Stdout)
	bad := 0
	for _, c := range checks {
		verdict := "ok"
		if !c.OK {
			verdict = "FAIL"
			bad++
		}
		fmt.Fprintf(tw, "%s\tprobe %d\tregion %d\t%s\t%s\t%s\n", c.Kernel, c.Probe, c.Region, c.Mode, verdict, c.Detail)
	}
	tw.Flush()
	fmt.Fprintf(o.Stdout, "%s (%s): %d end probes checked, %d out of order\n", o.File, arch, len(checks), bad)
	if bad > 0 {
		return errReported
	}
	return nil
}
