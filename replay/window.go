package replay

import "github.com/ptxtrace/ptxtrace/model"

var _ model.Windowed = (*warp)(nil)

// Window implements model.Windowed with the in-order minimum: the head
// instruction only. Looking further would need the SIMT stack's
// reconvergence points (the instruction after the head is not always the
// next one in the code), so a longer window is left to the out-of-order
// issue model that needs it.
func (w *warp) Window(buf []*model.Inst, n int) []*model.Inst {
	if n <= 0 {
		return buf
	}
	if in := w.Peek(); in != nil {
		buf = append(buf, in)
	}
	return buf
}
