package report

import (
	"image/png"
	"io"

	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// pngEncoder compresses for speed: a timeline is flat colour and text, so
// the best compression saves a few kilobytes a picture, while the default
// level made encoding a third of a virtual-time matrix's CPU.
var pngEncoder = png.Encoder{CompressionLevel: png.BestSpeed}

// writePNG rasterizes the chart into one image and encodes it.
func (t *timeline) writePNG(w io.Writer) error {
	c := vgimg.NewWith(vgimg.UseWH(t.w, t.h), vgimg.UseDPI(dpi))
	t.draw(draw.New(c))
	if err := t.stopped(); err != nil {
		return err
	}
	return pngEncoder.Encode(w, c.Image())
}
