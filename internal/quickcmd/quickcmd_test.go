package quickcmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/scanner"
	"go/token"
	"strings"
	"testing"
)

func TestReport(t *testing.T) {
	list := scanner.ErrorList{
		{Pos: token.Position{Filename: "a.ptx", Line: 3, Column: 7}, Msg: "expected ';'"},
		{Pos: token.Position{Filename: "a.ptx", Line: 9, Column: 1}, Msg: "unknown directive"},
	}
	tests := []struct {
		name   string
		err    error
		code   int
		stderr string
	}{
		{"nil", nil, 0, ""},
		{"usage", Usagef("fmt: -w needs %s", "files"), 2, "ptxtrace: fmt: -w needs files\n"},
		{"wrapped usage", fmt.Errorf("x: %w", Usagef("bad")), 2, "ptxtrace: bad\n"},
		{"reported", ErrReported, 1, ""},
		{"plain", errors.New("open x: no such file"), 1, "ptxtrace: open x: no such file\n"},
		{"error list", list, 1, "a.ptx:3:7: expected ';'\na.ptx:9:1: unknown directive\n"},
		{"interrupt", context.Canceled, 1, "ptxtrace: interrupted\n"},
		{"wrapped interrupt", fmt.Errorf("run k.ptx: %w", context.Canceled), 1, "ptxtrace: interrupted: run k.ptx\n"},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		if code := Report(&buf, tt.err); code != tt.code || buf.String() != tt.stderr {
			t.Errorf("%s: Report = %d, %q; want %d, %q", tt.name, code, buf.String(), tt.code, tt.stderr)
		}
	}
}

// TestRunFmtStdin formats standard input: Preserve mode prints the input
// byte for byte, and -w refuses standard input with a usage error.
func TestRunFmtStdin(t *testing.T) {
	src := ".version 7.0\n.target sm_52\n.address_size 64\n\n.visible .entry k()\n{\n\tret;\n}\n"
	var out, errb bytes.Buffer
	err := RunFmt(context.Background(), FmtOptions{Streams: Streams{Stdin: strings.NewReader(src), Stdout: &out, Stderr: &errb}})
	if err != nil || out.String() != src || errb.Len() != 0 {
		t.Errorf("RunFmt(stdin) = %v, stdout %q, stderr %q; want the input back", err, out.String(), errb.String())
	}
	err = RunFmt(context.Background(), FmtOptions{Streams: Streams{Stdin: strings.NewReader(src), Stdout: &out, Stderr: &errb}, Write: true})
	var u *UsageError
	if !errors.As(err, &u) {
		t.Errorf("RunFmt(-w, stdin) = %v; want a usage error", err)
	}
}
