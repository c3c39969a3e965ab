package instrument

import (
	"bytes"
	"os"
	"testing"
)

// TestWriteManifest: WriteManifest writes the bytes Manifest.Write writes,
// for the golden cases (one kernel, several probes, escaped text) and a
// generated module (many kernels, some without probes).
func TestWriteManifest(t *testing.T) {
	src, err := os.ReadFile("testdata/small.ptx")
	if err != nil {
		t.Fatal(err)
	}
	check := func(name string, src []byte, opts Options) {
		fset, f := parse(t, name, src)
		res, err := Instrument(fset, f, opts)
		if err != nil {
			t.Fatal(err)
		}
		var a, b bytes.Buffer
		if err := res.Manifest.Write(&a); err != nil {
			t.Fatal(err)
		}
		if err := WriteManifest(&b, res.Manifest); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Errorf("%s: WriteManifest differs from Manifest.Write at byte %d", name, firstDiff(a.Bytes(), b.Bytes()))
		}
	}
	for _, tc := range goldenCases {
		opts := tc.opts
		opts.Tool = "test <&> \"quoted\""
		check("testdata/small.ptx", src, opts)
	}
	check("gen.ptx", genModule(64<<10), Options{})
	// No kernels: "kernels": null.
	check("none.ptx", []byte(".version 7.8\n.target sm_80\n.address_size 64\n"), Options{})
}
