// Command otlpcheck reads OTLP/JSON files (JSON lines of
// ExportTraceServiceRequest, as the OpenTelemetry Collector's file
// exporter writes them) with the Collector's own reader,
// go.opentelemetry.io/collector/pdata/ptrace.JSONUnmarshaler, the code
// behind the otlpjsonfile receiver, and writes what it found as one binary
// OTLP protobuf message (TracesData, wire-compatible with
// ExportTraceServiceRequest) on standard output; with -count it prints the
// span count instead. The exporter's tests decode that message with the
// official OTLP protos, so a field the Collector ignores shows up as
// missing. It is a separate module so that the main module does not
// depend on the Collector; the tests skip when it cannot be built.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"

	"go.opentelemetry.io/collector/pdata/ptrace"
)

func main() {
	count := flag.Bool("count", false, "print the span count only")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: otlpcheck [-count] FILE.otlp.json...")
		os.Exit(2)
	}
	all := ptrace.NewTraces()
	for _, path := range flag.Args() {
		if err := read(path, all); err != nil {
			fmt.Fprintln(os.Stderr, "otlpcheck:", err)
			os.Exit(1)
		}
	}
	if *count {
		fmt.Println(all.SpanCount())
		return
	}
	var m ptrace.ProtoMarshaler
	b, err := m.MarshalTraces(all)
	if err != nil {
		fmt.Fprintln(os.Stderr, "otlpcheck:", err)
		os.Exit(1)
	}
	os.Stdout.Write(b)
}

// read appends the traces of every line of path to all.
func read(path string, all ptrace.Traces) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var u ptrace.JSONUnmarshaler
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<30)
	for n := 1; sc.Scan(); n++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		t, err := u.UnmarshalTraces(sc.Bytes())
		if err != nil {
			return fmt.Errorf("%s:%d: %w", path, n, err)
		}
		t.ResourceSpans().MoveAndAppendTo(all.ResourceSpans())
	}
	return sc.Err()
}
