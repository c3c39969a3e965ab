package specfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/ptxtrace/ptxtrace/internal/readcap"
	"github.com/ptxtrace/ptxtrace/model"
)

// file is the file form of a Spec: a preset to start from and the fields to
// override.
type file struct {
	Base       string `yaml:"base"`
	model.Spec `yaml:",inline"`
}

// DefaultBase is the preset a document without "base:" starts from.
const DefaultBase = "gtx480"

// Parse reads a Spec from YAML or JSON (JSON is read as YAML). The document
// may name a preset in "base:" (default DefaultBase); the fields it gives
// override the preset's, the others keep the preset's values. An unknown
// field is an error naming its line. The result is validated.
func Parse(data []byte) (model.Spec, error) {
	s, _, err := parse(data)
	return s, err
}

// parse is Parse, also reporting whether the document sets "name".
func parse(data []byte) (model.Spec, bool, error) {
	var probe struct {
		Base string  `yaml:"base"`
		Name *string `yaml:"name"`
	}
	if err := yaml.Unmarshal(data, &probe); err != nil {
		return model.Spec{}, false, fmt.Errorf("spec: %w", err)
	}
	base := probe.Base
	if base == "" {
		base = DefaultBase
	}
	p, ok := model.Preset(base)
	if !ok {
		return model.Spec{}, false, &model.FieldError{Field: "base",
			Msg: fmt.Sprintf("unknown preset %q (want one of %s)", base, strings.Join(model.PresetNames(), ", "))}
	}
	f := file{Base: base, Spec: p}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil && !errors.Is(err, io.EOF) {
		return model.Spec{}, false, fmt.Errorf("spec: %w", err)
	}
	if len(f.Spec.Shared.Carveouts) == 0 {
		f.Spec.Shared.Carveouts = nil // "carveouts: []" is the presets' nil
	}
	if err := f.Spec.Validate(); err != nil {
		return model.Spec{}, false, err
	}
	return f.Spec, probe.Name != nil, nil
}

// Marshal returns s as a YAML document that Parse reads back to an equal
// Spec.
func Marshal(s model.Spec) ([]byte, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(s); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// MaxFileBytes bounds a spec file Load reads; a larger file (or a pipe or
// device that yields more) is refused.
const MaxFileBytes = 16 << 20

// Load resolves arg as a preset name (model.Preset) or else as the path of
// a spec file read with Parse. A file that sets no "name:" gets its base
// name as Spec.Name, so that an override is reported by its own name, not
// its base preset's. Errors from the file name it.
func Load(arg string) (model.Spec, error) {
	if s, ok := model.Preset(arg); ok {
		return s, nil
	}
	data, err := readFile(arg)
	if err != nil {
		if os.IsNotExist(err) && !strings.ContainsAny(arg, "./\\") {
			return model.Spec{}, fmt.Errorf("unknown model %q: not a preset (%s) nor a file",
				arg, strings.Join(model.PresetNames(), ", "))
		}
		return model.Spec{}, err
	}
	s, named, err := parse(data)
	if err != nil {
		return model.Spec{}, fmt.Errorf("%s: %w", arg, err)
	}
	if !named {
		s.Name = filepath.Base(arg)
	}
	return s, nil
}

// readFile reads path whole, refusing a directory and anything over
// MaxFileBytes.
func readFile(path string) ([]byte, error) {
	return readcap.ReadFile(path, "model spec", MaxFileBytes)
}
