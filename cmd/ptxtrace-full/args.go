package main

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// normalizeArgs lets flags stand before or after positional arguments, as
// in go, git or kubectl: the cli package stops parsing flags at the first
// positional argument, so the arguments of the command being run are
// reordered to all its flags (each with its value when the flag takes one)
// followed by "--" and the positional arguments in their order. A "--" in
// args ends the flags: everything after it is positional. Arguments before
// the command name, of the help command, or of a command that is not
// found are left as they are. args[0] is the program name. A flag that
// takes a value but ends the arguments is a usage error.
func normalizeArgs(app *cli.App, args []string) ([]string, error) {
	if len(args) < 2 {
		return args, nil
	}
	out := []string{args[0]}
	rest := args[1:]
	// global flags before the command name
	for len(rest) > 0 && isFlagToken(rest[0]) {
		out, rest = append(out, rest[0]), rest[1:]
	}
	if len(rest) == 0 {
		return args, nil
	}
	cmd := findCommand(app.Commands, rest[0])
	if cmd == nil || cmd.Name == "help" {
		return args, nil
	}
	out, rest = append(out, rest[0]), rest[1:]
	path := app.Name + " " + cmd.Name
	for len(cmd.Subcommands) > 0 {
		// flags of the parent stay before the subcommand's name
		i := 0
		for i < len(rest) && isFlagToken(rest[i]) {
			i++
		}
		if i == len(rest) {
			return append(out, rest...), nil
		}
		sub := findCommand(cmd.Subcommands, rest[i])
		if sub == nil || sub.Name == "help" {
			return append(out, rest...), nil
		}
		out = append(out, rest[:i+1]...)
		rest = rest[i+1:]
		cmd = sub
		path += " " + sub.Name
	}
	var flags, pos []string
	for i := 0; i < len(rest); i++ {
		tok := rest[i]
		switch {
		case tok == "--":
			pos = append(pos, rest[i+1:]...)
			i = len(rest)
		case isFlagToken(tok):
			flags = append(flags, tok)
			if !strings.Contains(tok, "=") && takesValue(cmd, strings.TrimLeft(tok, "-")) {
				if i+1 == len(rest) {
					return nil, usagef("flag needs an argument: %s (see '%s --help')", tok, path)
				}
				flags = append(flags, rest[i+1])
				i++
			}
		default:
			pos = append(pos, tok)
		}
	}
	out = append(out, flags...)
	if len(pos) > 0 {
		out = append(out, "--")
		out = append(out, pos...)
	}
	return out, nil
}

// isFlagToken reports whether tok looks like a flag ("-" alone is the
// standard-input file name, "--" the end of the flags).
func isFlagToken(tok string) bool {
	return len(tok) > 1 && tok[0] == '-' && tok != "--"
}

// findCommand returns the command named name (or aliased so) in cmds.
func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.HasName(name) {
			return c
		}
	}
	if name == "help" || name == "h" {
		return &cli.Command{Name: "help"}
	}
	return nil
}

// takesValue reports whether cmd's flag name takes a value (bool flags and
// the help flag do not; an unknown flag is treated as not taking one, and
// the cli package reports it).
func takesValue(cmd *cli.Command, name string) bool {
	for _, f := range cmd.Flags {
		for _, n := range f.Names() {
			if n == name {
				if v, ok := f.(cli.DocGenerationFlag); ok {
					return v.TakesValue()
				}
				return true
			}
		}
	}
	return false
}
