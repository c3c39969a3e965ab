package specfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"gopkg.in/yaml.v3"

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
	var probe struct {
		Base string `yaml:"base"`
	}
	if err := yaml.Unmarshal(data, &probe); err != nil {
		return model.Spec{}, fmt.Errorf("spec: %w", err)
	}
	base := probe.Base
	if base == "" {
		base = DefaultBase
	}
	p, ok := model.Preset(base)
	if !ok {
		return model.Spec{}, &model.FieldError{Field: "base",
			Msg: fmt.Sprintf("unknown preset %q (want one of %s)", base, strings.Join(model.PresetNames(), ", "))}
	}
	f := file{Base: base, Spec: p}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil && !errors.Is(err, io.EOF) {
		return model.Spec{}, fmt.Errorf("spec: %w", err)
	}
	if err := f.Spec.Validate(); err != nil {
		return model.Spec{}, err
	}
	return f.Spec, nil
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

// Load resolves arg as a preset name (model.Preset) or else as the path of
// a spec file read with Parse. Errors from the file name it.
func Load(arg string) (model.Spec, error) {
	if s, ok := model.Preset(arg); ok {
		return s, nil
	}
	data, err := os.ReadFile(arg)
	if err != nil {
		if os.IsNotExist(err) && !strings.ContainsAny(arg, "./\\") {
			return model.Spec{}, fmt.Errorf("unknown model %q: not a preset (%s) nor a file",
				arg, strings.Join(model.PresetNames(), ", "))
		}
		return model.Spec{}, err
	}
	s, err := Parse(data)
	if err != nil {
		return model.Spec{}, fmt.Errorf("%s: %w", arg, err)
	}
	return s, nil
}
