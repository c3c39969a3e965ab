// Package otlptest reads OTLP/JSON files back for tests with the
// OpenTelemetry Collector's reader: it builds the otlpcheck module (a
// separate module, so the main module does not depend on the Collector)
// and decodes what it prints with the official OTLP protos.
//
// Invariant: nothing here parses OTLP/JSON itself; a file the Collector
// reads as 0 spans gives 0 spans.
package otlptest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"
)

// Checker builds the otlpcheck command into a temporary directory and
// returns its path; it skips the test (with the reason) when the go tool
// or the Collector module is not available.
func Checker(t testing.TB) string {
	t.Helper()
	bin, err := Build(t.TempDir())
	if err != nil {
		t.Skip(err)
	}
	return bin
}

// Build builds the otlpcheck command into dir and returns its path, or
// says why it cannot.
func Build(dir string) (string, error) {
	if _, err := exec.LookPath("go"); err != nil {
		return "", errors.New("go tool not on PATH: cannot build the Collector's OTLP/JSON reader")
	}
	_, self, _, ok := runtime.Caller(0)
	if !ok {
		return "", errors.New("cannot locate the otlpcheck module")
	}
	bin := filepath.Join(dir, "otlpcheck")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = filepath.Join(filepath.Dir(self), "..", "otlpcheck")
	build.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("cannot build the Collector's OTLP/JSON reader (needs go.opentelemetry.io/collector/pdata from the module proxy): %v\n%s", err, out)
	}
	return bin, nil
}

// Read reads OTLP/JSON files with the checker bin and returns everything
// the Collector found, as one request.
func Read(t testing.TB, bin string, files ...string) *coltracepb.ExportTraceServiceRequest {
	t.Helper()
	cmd := exec.Command(bin, files...)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("otlpcheck %v: %v", files, err)
	}
	req := &coltracepb.ExportTraceServiceRequest{}
	if err := proto.Unmarshal(out, req); err != nil {
		t.Fatalf("otlpcheck output: %v", err)
	}
	return req
}
