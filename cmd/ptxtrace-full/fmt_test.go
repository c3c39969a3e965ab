package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// messy is valid PTX laid out unusually, so Preserve and Canonical printing
// differ.
const messy = `.version 7.0
.target   sm_70
.address_size 64

// keep me
.visible .entry k(.param .u64 k_p)
{
  .reg .b64 %rd<3>;   .reg .f32 %f<2>;
	ld.param.u64   %rd1,[k_p];
   cvta.to.global.u64 %rd2,  %rd1;
  ld.global.f32 %f1, [%rd2+4];
    st.global.f32 [%rd2],%f1;
  ret;
}
`

// broken does not parse: the function body is never closed.
const broken = `.version 7.0
.target sm_70
.address_size 64

.visible .entry k()
{
	ret;
`

var errLine = regexp.MustCompile(`(?m)^[^\s:]+\.ptx:\d+:\d+: \S`)

func readString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestFmtStdout(t *testing.T) {
	vecadd := readString(t, filepath.Join("testdata", "vecadd.ptx"))
	tests := []struct {
		name string
		src  string
	}{
		{"vecadd", vecadd},
		{"messy", messy},
		{"crlf", strings.ReplaceAll(messy, "\n", "\r\n")},
		{"empty", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeTemp(t, "in.ptx", tt.src, 0o644)

			// Preserve mode reproduces the input byte for byte.
			r := runCLI(t, "", "fmt", path)
			if r.code != 0 || r.stderr != "" {
				t.Fatalf("fmt: exit %d, stderr:\n%s", r.code, r.stderr)
			}
			if r.stdout != tt.src {
				t.Errorf("Preserve output differs from input:\n got %q\nwant %q", r.stdout, tt.src)
			}

			// Standard input gives the same.
			if s := runCLI(t, tt.src, "fmt"); s.code != 0 || s.stdout != tt.src {
				t.Errorf("fmt on stdin: exit %d, output %q, stderr %s", s.code, s.stdout, s.stderr)
			}

			// Canonical output parses again and is a fixed point.
			c := runCLI(t, "", "fmt", "--canonical", path)
			if c.code != 0 || c.stderr != "" {
				t.Fatalf("fmt --canonical: exit %d, stderr:\n%s", c.code, c.stderr)
			}
			again := runCLI(t, c.stdout, "fmt", "--canonical", "-")
			if again.code != 0 {
				t.Fatalf("canonical output does not parse: exit %d\n%s", again.code, again.stderr)
			}
			if again.stdout != c.stdout {
				t.Errorf("canonical printing is not idempotent:\nfirst:\n%s\nsecond:\n%s", c.stdout, again.stdout)
			}
		})
	}
}

func TestFmtMultipleFiles(t *testing.T) {
	a := writeTemp(t, "a.ptx", messy, 0o644)
	bad := writeTemp(t, "bad.ptx", broken, 0o644)
	b := writeTemp(t, "b.ptx", messy, 0o644)
	r := runCLI(t, "", "fmt", a, bad, b)
	if r.code != 1 {
		t.Errorf("exit code = %d, want 1", r.code)
	}
	if r.stdout != messy+messy {
		t.Errorf("stdout should hold both good files:\n%s", r.stdout)
	}
	if !strings.HasPrefix(r.stderr, bad+":") || !errLine.MatchString(r.stderr) {
		t.Errorf("stderr should report bad.ptx errors as file:line:col: lines:\n%s", r.stderr)
	}
}

func TestFmtWrite(t *testing.T) {
	tests := []struct {
		name string
		perm os.FileMode
		args []string
	}{
		{"canonical 0644", 0o644, []string{"--canonical", "-w"}},
		{"canonical 0600", 0o600, []string{"--canonical", "-w"}},
		{"canonical 0755", 0o755, []string{"-w", "--canonical"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeTemp(t, "k.ptx", messy, tt.perm)
			want := runCLI(t, "", "fmt", "--canonical", path)
			if want.code != 0 {
				t.Fatalf("fmt --canonical: %s", want.stderr)
			}
			r := runCLI(t, "", append(append([]string{"fmt"}, tt.args...), path)...)
			if r.code != 0 || r.stdout != "" || r.stderr != "" {
				t.Fatalf("fmt -w: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
			}
			if got := readString(t, path); got != want.stdout {
				t.Errorf("file after -w:\n%s\nwant:\n%s", got, want.stdout)
			}
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != tt.perm {
				t.Errorf("mode = %v, want %v", fi.Mode().Perm(), tt.perm)
			}
			entries, err := os.ReadDir(filepath.Dir(path))
			if err != nil {
				t.Fatal(err)
			}
			if len(entries) != 1 {
				t.Errorf("directory holds %d entries after -w, want only the file", len(entries))
			}
		})
	}
}

func TestFmtWriteUnchangedKeepsFile(t *testing.T) {
	// Preserve mode prints the input unchanged, so -w must not touch it.
	path := writeTemp(t, "k.ptx", messy, 0o644)
	old := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	if r := runCLI(t, "", "fmt", "-w", path); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if !fi.ModTime().Equal(old) {
		t.Errorf("unchanged file was rewritten (mtime %v)", fi.ModTime())
	}
}

func TestFmtErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name     string
		src      string   // contents of bad.ptx
		args     []string // before the file name
		wantCode int
		wantErr  *regexp.Regexp
	}{
		{"parse error", broken, nil, 1, errLine},
		{"parse error -w", broken, []string{"-w"}, 1, errLine},
		{"parse error canonical -w", broken, []string{"--canonical", "-w"}, 1, errLine},
		{"parse error all errors", "}\n)\n;\n" + broken, []string{"--all-errors", "-w"}, 1, errLine},
		{"garbage", "\x00\xff{{{ ]] ;;", []string{"-w"}, 1, errLine},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeTemp(t, "bad.ptx", tt.src, 0o644)
			r := runCLI(t, "", append(append([]string{"fmt"}, tt.args...), path)...)
			if r.code != tt.wantCode {
				t.Errorf("exit code = %d, want %d", r.code, tt.wantCode)
			}
			if r.stdout != "" {
				t.Errorf("stdout not empty on error:\n%s", r.stdout)
			}
			if !tt.wantErr.MatchString(r.stderr) {
				t.Errorf("stderr does not match %s:\n%s", tt.wantErr, r.stderr)
			}
			for _, line := range strings.Split(strings.TrimSpace(r.stderr), "\n") {
				if !strings.HasPrefix(line, path+":") {
					t.Errorf("error line does not start with the file name: %q", line)
				}
			}
			if got := readString(t, path); got != tt.src {
				t.Errorf("file changed on error")
			}
			entries, _ := os.ReadDir(filepath.Dir(path))
			if len(entries) != 1 {
				t.Errorf("directory holds %d entries, want only the file", len(entries))
			}
		})
	}

	other := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  *regexp.Regexp
	}{
		{"missing file", []string{filepath.Join(dir, "nope.ptx")}, 1,
			regexp.MustCompile(`^ptxtrace: .*nope\.ptx: no such file or directory\n$`)},
		{"directory", []string{dir}, 1, regexp.MustCompile(`^ptxtrace: .*not a regular file\n$`)},
		{"-w on stdin", []string{"-w"}, 2, regexp.MustCompile(`^ptxtrace: fmt: -w needs file arguments`)},
		{"-w with -", []string{"-w", "-"}, 2, regexp.MustCompile(`^ptxtrace: fmt: -w needs file arguments`)},
		{"flag after file applies", []string{filepath.Join(dir, "x.ptx"), "-w"}, 1, regexp.MustCompile(`x\.ptx: no such file`)},
		{"unknown flag", []string{"--nope"}, 2, regexp.MustCompile(`^ptxtrace: flag provided but not defined`)},
	}
	for _, tt := range other {
		t.Run(tt.name, func(t *testing.T) {
			r := runCLI(t, "", append([]string{"fmt"}, tt.args...)...)
			if r.code != tt.wantCode {
				t.Errorf("exit code = %d, want %d", r.code, tt.wantCode)
			}
			if !tt.wantErr.MatchString(r.stderr) {
				t.Errorf("stderr does not match %s:\n%s", tt.wantErr, r.stderr)
			}
			if r.stdout != "" {
				t.Errorf("stdout not empty:\n%s", r.stdout)
			}
		})
	}
}

func TestFmtStdinParseError(t *testing.T) {
	r := runCLI(t, broken, "fmt")
	if r.code != 1 {
		t.Errorf("exit code = %d, want 1", r.code)
	}
	if !regexp.MustCompile(`^<stdin>:\d+:\d+: `).MatchString(r.stderr) {
		t.Errorf("stderr:\n%s", r.stderr)
	}
}

// FuzzFmt feeds arbitrary input to `ptxtrace fmt` on standard input: it must
// never crash, must exit 0 or 1, must report failures as file:line:col
// lines, and in Preserve mode must print its input unchanged.
func FuzzFmt(f *testing.F) {
	f.Add(messy)
	f.Add(broken)
	f.Add("")
	f.Add(".version 7.0\r\n.target sm_70\r\n")
	f.Fuzz(func(t *testing.T, src string) {
		r := runCLI(t, src, "fmt")
		switch r.code {
		case 0:
			if r.stdout != src {
				t.Errorf("Preserve output differs from input:\n got %q\nwant %q", r.stdout, src)
			}
		case 1:
			if strings.Contains(r.stderr, "internal error") {
				t.Fatalf("crash:\n%s", r.stderr)
			}
			if !strings.HasPrefix(r.stderr, "<stdin>:") {
				t.Errorf("failure not reported as <stdin>:line:col: lines:\n%s", r.stderr)
			}
		default:
			t.Errorf("exit code %d\n%s", r.code, r.stderr)
		}
	})
}
