package report

import (
	"bufio"
	"compress/zlib"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"

	"git.sr.ht/~sbinet/gg"
	"github.com/golang/freetype/raster"
	xdraw "golang.org/x/image/draw"
	"golang.org/x/image/math/f64"
	"golang.org/x/image/math/fixed"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// writePNG rasterizes the chart into one image and encodes it.
func (t *timeline) writePNG(w io.Writer) error {
	c := newPNGCanvas(t.w, t.h)
	t.draw(draw.New(c))
	if err := t.stopped(); err != nil {
		return err
	}
	return encodePNG(w, c.img)
}

// pngCanvas is vgimg's canvas, drawing the same pixels for less: it
// draws into the image it was given rather than a copy, and it paints
// the fully covered pixels of an opaque fill by copying the colour in,
// where vgimg's painter blends each one (for a fully covered pixel and an
// opaque colour its blend gives the colour itself). The chart is mostly
// opaque rectangles (background, row bands, bars), so that is most of
// the painting. Every other fill, stroke and text goes to vgimg.
type pngCanvas struct {
	*vgimg.Canvas
	img   *image.RGBA
	ctx   *gg.Context
	color []color.Color // the fill colour, per Push level, as vgimg keeps it
	rast  *raster.Rasterizer
	paint opaquePainter
}

// newPNGCanvas is vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(dpi))
// without the copy of the image vgimg's graphic context makes.
func newPNGCanvas(w, h vg.Length) *pngCanvas {
	pw, ph := w/vg.Inch*vg.Length(dpi), h/vg.Inch*vg.Length(dpi)
	img := image.NewRGBA(image.Rect(0, 0, int(pw+0.5), int(ph+0.5)))
	ctx := gg.NewContextForRGBA(img)
	ctx.SetLineCapButt()
	ctx.SetInterpolator(glyphInterp{})
	ctx.InvertY()
	c := &pngCanvas{
		Canvas: vgimg.NewWith(vgimg.UseImageWithContext(img, ctx), vgimg.UseDPI(dpi)),
		img:    img, ctx: ctx, color: []color.Color{color.Black},
		rast: raster.NewRasterizer(img.Rect.Dx(), img.Rect.Dy()),
	}
	c.paint.RGBAPainter = raster.NewRGBAPainter(img)
	return c
}

func (c *pngCanvas) SetColor(clr color.Color) {
	c.Canvas.SetColor(clr)
	if clr == nil {
		clr = color.Black
	}
	c.color[len(c.color)-1] = clr
}

func (c *pngCanvas) Push() {
	c.Canvas.Push()
	c.color = append(c.color, c.color[len(c.color)-1])
}

func (c *pngCanvas) Pop() {
	c.Canvas.Pop()
	c.color = c.color[:len(c.color)-1]
}

// Fill fills p as vgimg's graphic context would: the same path, in the
// same fixed-point coordinates, through the same rasterizer and non-zero
// winding rule. A path with arcs or curves goes to vgimg.
func (c *pngCanvas) Fill(p vg.Path) {
	path, ok := c.fixedPath(p)
	if !ok {
		c.Canvas.Fill(p)
		return
	}
	c.paint.SetColor(c.color[len(c.color)-1])
	c.rast.UseNonZeroWinding = true
	c.rast.Clear()
	c.rast.AddPath(path)
	c.rast.Rasterize(&c.paint)
}

// fixedPath is p as gg's MoveTo, LineTo, ClosePath and Fill build it;
// false when p has a component other than those.
func (c *pngCanvas) fixedPath(p vg.Path) (raster.Path, bool) {
	var path raster.Path
	var start fixedPoint
	open := false
	dpi := c.DPI()
	for _, comp := range p {
		switch comp.Type {
		case vg.MoveComp:
			if open {
				path.Add1(start.fixed())
			}
			start = c.point(comp.Pos.X.Dots(dpi), comp.Pos.Y.Dots(dpi))
			path.Start(start.fixed())
			open = true
		case vg.LineComp:
			pt := c.point(comp.Pos.X.Dots(dpi), comp.Pos.Y.Dots(dpi))
			if !open {
				start = pt
				path.Start(pt.fixed())
				open = true
				continue
			}
			path.Add1(pt.fixed())
		case vg.CloseComp:
			if open {
				path.Add1(start.fixed())
			}
		default:
			return nil, false
		}
	}
	if open {
		path.Add1(start.fixed())
	}
	return path, true
}

type fixedPoint struct{ x, y float64 }

func (c *pngCanvas) point(x, y float64) fixedPoint {
	x, y = c.ctx.TransformPoint(x, y)
	return fixedPoint{x, y}
}

// fixed is gg's Point.Fixed.
func (p fixedPoint) fixed() fixed.Point26_6 {
	return fixed.Point26_6{X: fixed.Int26_6(math.Round(p.x * 64)), Y: fixed.Int26_6(math.Round(p.y * 64))}
}

// opaquePainter is raster.RGBAPainter (draw.Over) with its spans of full
// coverage in an opaque colour copied in: the blend of such a pixel is
// the colour itself, whatever was under it.
type opaquePainter struct {
	*raster.RGBAPainter
	opaque bool
	pix    [4]byte
}

func (p *opaquePainter) SetColor(c color.Color) {
	p.RGBAPainter.SetColor(c)
	r, g, b, a := c.RGBA()
	p.opaque = a == 0xffff
	p.pix = [4]byte{byte(r >> 8), byte(g >> 8), byte(b >> 8), byte(a >> 8)}
}

func (p *opaquePainter) Paint(ss []raster.Span, done bool) {
	if !p.opaque {
		p.RGBAPainter.Paint(ss, done)
		return
	}
	im := p.Image
	b := im.Bounds()
	for i, s := range ss {
		if s.Alpha != 0xffff {
			p.RGBAPainter.Paint(ss[i:i+1], done)
			continue
		}
		if s.Y < b.Min.Y || s.Y >= b.Max.Y {
			continue
		}
		x0, x1 := max(s.X0, b.Min.X), min(s.X1, b.Max.X)
		if x0 >= x1 {
			continue
		}
		row := im.Pix[(s.Y-im.Rect.Min.Y)*im.Stride+(x0-im.Rect.Min.X)*4 : (s.Y-im.Rect.Min.Y)*im.Stride+(x1-im.Rect.Min.X)*4]
		copy(row, p.pix[:])
		for n := 4; n < len(row); n *= 2 {
			copy(row[n:], row[:n])
		}
	}
}

// glyphInterp is gg's interpolator, bilinear, with the shortcut
// x/image's approximate interpolators take and its exact one does not: a
// transform that only moves by whole pixels is a copy. gg draws every glyph
// of a text through its interpolator, and a timeline's texts are all drawn
// upright at whole-pixel offsets, where bilinear sampling lands on the
// glyph's own pixels and gives the copy's pixels.
type glyphInterp struct{}

func (glyphInterp) Transform(dst xdraw.Image, s2d f64.Aff3, src image.Image, sr image.Rectangle, op xdraw.Op, opts *xdraw.Options) {
	if s2d[0] == 1 && s2d[1] == 0 && s2d[3] == 0 && s2d[4] == 1 {
		dx, dy := int(s2d[2]), int(s2d[5])
		if float64(dx) == s2d[2] && float64(dy) == s2d[5] {
			xdraw.Copy(dst, image.Point{X: sr.Min.X + dx, Y: sr.Min.Y + dy}, src, sr, op, opts)
			return
		}
	}
	xdraw.BiLinear.Transform(dst, s2d, src, sr, op, opts)
}

func (glyphInterp) Scale(dst xdraw.Image, dr image.Rectangle, src image.Image, sr image.Rectangle, op xdraw.Op, opts *xdraw.Options) {
	xdraw.BiLinear.Scale(dst, dr, src, sr, op, opts)
}

// pngEncoder is the encoder of an image encodePNG does not take.
var pngEncoder = png.Encoder{CompressionLevel: png.BestSpeed}

// encodePNG writes an opaque m as an 8-bit RGB PNG, its rows unfiltered
// and deflated at the fastest level: a timeline is large areas of flat
// colour, which deflate's matches take whole, so the per-row filter the
// standard encoder picks (trying five on every row) buys a larger file
// for twice the time. An image with a pixel that is not opaque goes to
// image/png.
func encodePNG(w io.Writer, m *image.RGBA) error {
	if !opaque(m) {
		return pngEncoder.Encode(w, m)
	}
	width, height := m.Rect.Dx(), m.Rect.Dy()
	bw := bufio.NewWriter(w)
	pw := &pngChunks{w: bw}
	pw.write([]byte("\x89PNG\r\n\x1a\n"))
	var ihdr [13]byte
	binary.BigEndian.PutUint32(ihdr[0:4], uint32(width))
	binary.BigEndian.PutUint32(ihdr[4:8], uint32(height))
	ihdr[8], ihdr[9] = 8, 2 // 8 bits a sample, RGB
	pw.chunk("IHDR", ihdr[:])
	idat := bufio.NewWriterSize(idatWriter{pw}, 1<<16)
	z, err := zlib.NewWriterLevel(idat, zlib.BestSpeed)
	if err != nil {
		return err
	}
	row := make([]byte, 1+3*width) // filter byte 0: none
	for y := range height {
		src := m.Pix[y*m.Stride : y*m.Stride+4*width]
		for x, j := 0, 1; x < len(src); x, j = x+4, j+3 {
			row[j], row[j+1], row[j+2] = src[x], src[x+1], src[x+2]
		}
		if _, err := z.Write(row); err != nil {
			return err
		}
	}
	if err := z.Close(); err != nil {
		return err
	}
	if err := idat.Flush(); err != nil {
		return err
	}
	pw.chunk("IEND", nil)
	if pw.err != nil {
		return pw.err
	}
	return bw.Flush()
}

func opaque(m *image.RGBA) bool {
	width := m.Rect.Dx()
	for y := range m.Rect.Dy() {
		src := m.Pix[y*m.Stride : y*m.Stride+4*width]
		for x := 3; x < len(src); x += 4 {
			if src[x] != 0xff {
				return false
			}
		}
	}
	return true
}

// pngChunks writes PNG chunks, keeping the first error.
type pngChunks struct {
	w   io.Writer
	err error
}

func (p *pngChunks) write(b []byte) {
	if p.err == nil {
		_, p.err = p.w.Write(b)
	}
}

func (p *pngChunks) chunk(typ string, data []byte) {
	var head [8]byte
	binary.BigEndian.PutUint32(head[:4], uint32(len(data)))
	copy(head[4:], typ)
	crc := crc32.NewIEEE()
	_, _ = crc.Write(head[4:])
	_, _ = crc.Write(data)
	var sum [4]byte
	binary.BigEndian.PutUint32(sum[:], crc.Sum32())
	p.write(head[:])
	p.write(data)
	p.write(sum[:])
}

// idatWriter makes each write one IDAT chunk.
type idatWriter struct{ p *pngChunks }

func (w idatWriter) Write(b []byte) (int, error) {
	w.p.chunk("IDAT", b)
	if w.p.err != nil {
		return 0, w.p.err
	}
	return len(b), nil
}
