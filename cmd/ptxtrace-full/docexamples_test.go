package main

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// docCommandLines returns every command line documented in the markdown
// file path: lines of code blocks, and inline code spans, that begin with
// "ptxtrace ", made concrete (docConcrete).
func docCommandLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	inline := regexp.MustCompile("`(ptxtrace [^`]*)`")
	var out []string
	block := false
	for _, line := range strings.Split(string(b), "\n") {
		l := strings.TrimSpace(line)
		if strings.HasPrefix(l, "```") {
			block = !block
			continue
		}
		if block {
			l = strings.TrimPrefix(l, "$ ")
			if strings.HasPrefix(l, "ptxtrace ") {
				out = append(out, l)
			}
			continue
		}
		for _, m := range inline.FindAllStringSubmatch(line, -1) {
			out = append(out, strings.ReplaceAll(m[1], `\|`, "|"))
		}
	}
	return out
}

// docConcrete turns a documented synopsis into one concrete command line:
// shell pipes, redirections and trailing comments are cut, "[command
// options]" dropped, optional groups "[...]" kept with their first
// alternative, "A|B" replaced by A and "X..." by X. It returns nil for a
// line that documents no invocation (a help header "ptxtrace X - text").
func docConcrete(line string) []string {
	if i := strings.Index(line, " - "); i >= 0 && !strings.Contains(line[:i], "|") && !strings.Contains(line[:i], "[") {
		return nil // "ptxtrace fmt - parse PTX files ..." (a help header)
	}
	for _, cut := range []string{"  ", " #"} {
		if i := strings.Index(line, cut); i >= 0 {
			line = line[:i]
		}
	}
	line = strings.ReplaceAll(line, "[command options]", "")
	// optional groups: keep the first alternative inside
	group := regexp.MustCompile(`\[([^\[\]]*)\]`)
	for group.MatchString(line) {
		line = group.ReplaceAllStringFunc(line, func(g string) string {
			in := g[1 : len(g)-1]
			if i := strings.Index(in, " | "); i >= 0 {
				in = in[:i]
			}
			return in
		})
	}
	for _, cut := range []string{" | ", " > ", " < "} { // shell pipes and redirections
		if i := strings.Index(line, cut); i >= 0 {
			line = line[:i]
		}
	}
	var out []string
	for _, f := range strings.Fields(line) {
		if i := strings.Index(f, "|"); i > 0 {
			f = f[:i]
		}
		f = strings.TrimSuffix(f, "...")
		if f != "" {
			out = append(out, f)
		}
	}
	// placeholders that must be valid values to parse
	for i, f := range out {
		switch {
		case f == "N" || f == "PIXELS":
			out[i] = "2"
		case f == "NAME" && len(out) > 1 && out[1] == "samples":
			out[i] = "vecadd"
		case f == "NAME" && len(out) > 1 && out[1] == "model":
			out[i] = "gtx480"
		}
	}
	return out
}

// onlyCommandWords reports whether args (after the program name) are all
// command and subcommand names: a mention of a command, not an invocation.
func onlyCommandWords(app *cli.App, args []string) bool {
	cmds := app.Commands
	for _, a := range args[1:] {
		c := findCommand(cmds, a)
		if c == nil {
			return false
		}
		cmds = c.Subcommands
	}
	return true
}

// TestDocumentedCommandLinesParse: every command line of README.md and
// docs/cli.md parses: run with its placeholder file names (which do not
// exist) in an empty directory and a cancelled context, it may fail on
// its input (status 1) but never with a usage error (status 2).
func TestDocumentedCommandLinesParse(t *testing.T) {
	var lines []string
	for _, p := range []string{"../../README.md", "../../docs/cli.md"} {
		lines = append(lines, docCommandLines(t, p)...)
	}
	if len(lines) < 20 {
		t.Fatalf("found %d documented command lines, want at least 20", len(lines))
	}
	t.Chdir(t.TempDir())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	app := newApp(streams{})
	n := 0
	for _, l := range lines {
		args := docConcrete(l)
		if args == nil || len(args) < 2 || strings.Contains(l, "COMMAND") || args[1] == "help" || onlyCommandWords(app, args) {
			continue
		}
		n++
		var out, errOut strings.Builder
		code := run(ctx, args, strings.NewReader(""), &out, &errOut)
		if code == exitUsage {
			t.Errorf("documented %q (as %q): usage error: %s", l, strings.Join(args, " "), errOut.String())
		}
	}
	t.Logf("%d documented command lines checked", n)
}

// TestDocsHelpAgree: each "--help" text reproduced in docs/cli.md is what
// the command prints.
func TestDocsHelpAgree(t *testing.T) {
	b, err := os.ReadFile("../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile("(?s)### `ptxtrace ([a-z ]+)`\n\n```\n(NAME:.*?)\n```")
	ms := re.FindAllStringSubmatch(string(b), -1)
	if len(ms) < 10 {
		t.Fatalf("docs/cli.md has %d help blocks, want at least 10", len(ms))
	}
	for _, m := range ms {
		r := runCLI(t, "", append(strings.Fields(m[1]), "--help")...)
		if got := strings.TrimRight(r.stdout, "\n"); got != m[2] {
			t.Errorf("docs/cli.md help of %q differs from --help:\n--- docs\n%s\n--- --help\n%s", m[1], m[2], got)
		}
	}
}

// TestReadmeGoVersion: the Go version README.md asks for is go.mod's.
func TestReadmeGoVersion(t *testing.T) {
	mod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindSubmatch(mod)
	if m == nil {
		t.Fatal("go.mod has no go line")
	}
	readme, _ := os.ReadFile("../../README.md")
	if want := "Go " + string(m[1]) + " or newer"; !strings.Contains(string(readme), want) {
		t.Errorf("README.md does not say %q", want)
	}
}
