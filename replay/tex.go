package replay

import (
	"fmt"

	"github.com/ptxtrace/ptxtrace/ptx"
)

// TexBinding binds a texture reference or object of a launch (filled in
// when internal/texture is available).
type TexBinding struct {
	Name string
}

func (l *lowerer) lowerTex(p *ptx.Instruction, in *inst, f ptx.Facts) error {
	return fmt.Errorf("textures and surfaces are not supported yet")
}

func (s *Spec) buildTextures(prog *Program, baseDir string) ([]*TexBinding, error) {
	if len(s.Textures) > 0 {
		return nil, fmt.Errorf("textures are not supported yet")
	}
	return nil, nil
}
