package instrument

import (
	"bufio"
	"bytes"
	"errors"
	"io"

	"github.com/ptxtrace/ptxtrace/manifest"
)

// WriteManifest writes man exactly as man.Write does, encoding one kernel
// at a time (manifest.AppendKernel, the bytes of encoding/json without
// its reflection): the manifest of a large module (a few times its size
// as JSON) is then never held whole in memory as text.
func WriteManifest(w io.Writer, man *manifest.Manifest) error {
	if len(man.Kernels) == 0 {
		return man.Write(w) // "kernels": null or []
	}
	head := *man
	head.Kernels = []manifest.Kernel{}
	var hb bytes.Buffer
	if err := head.Write(&hb); err != nil {
		return err
	}
	// The kernels field, at depth 1, encodes as below when empty; no
	// string value holds it (a quote in a string is escaped).
	const empty = "\n  \"kernels\": []"
	i := bytes.Index(hb.Bytes(), []byte(empty))
	if i < 0 {
		return errors.New("manifest: internal error: no kernels field")
	}
	bw := bufio.NewWriterSize(w, streamChunk) // a write per 4 KiB would cost a system call each
	bw.Write(hb.Bytes()[:i+len(empty)-1])     // up to "["
	var b []byte
	for k := range man.Kernels {
		var err error
		b, err = manifest.AppendKernel(b[:0], &man.Kernels[k], "    ")
		if err != nil {
			return err
		}
		if k > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString("\n    ")
		bw.Write(b)
	}
	bw.WriteString("\n  ]")
	bw.Write(hb.Bytes()[i+len(empty):])
	return bw.Flush()
}
