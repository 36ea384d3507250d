package report

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"testing"

	"git.sr.ht/~sbinet/gg"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	xdraw "golang.org/x/image/draw"
	"golang.org/x/image/math/f64"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// pngFixtures are timelines of every kind: a witness with its zoomed
// panel, fencing, a deadlock, node lanes with a clock jump, a Sentinel
// failover, a Redis Cluster failover, and a crowded run.
func pngFixtures(t *testing.T) map[string]Run {
	cluster := newRun(t, "cluster-failover-lost-window", "setpx", clusterFailoverHistory(), 2, "unsafe")
	cluster.Setup.Backend = backendCluster
	return map[string]Run{
		"gc-pause":  gcPauseRun(t),
		"fenced":    newRun(t, "s", "fenced", fencedPause(), 2, "safe"),
		"deadlock":  newRun(t, "s", "setnx-expire", stuck(), 2, "deadlock"),
		"clock":     newRun(t, "redlock-node-clock-jump", "redlock", clockJump(), 2, "unsafe"),
		"sentinel":  newRun(t, "failover-async-replication", "setpx", sentinelFailover(), 2, "unsafe"),
		"cluster":   cluster,
		"busy":      newRun(t, "busy", "redlock", busy(), 6, "unsafe"),
		"no-expect": newRun(t, "s", "setpx", setnxExpireDeadlock(), 2, ""),
	}
}

// The PNG canvas draws exactly the pixels of vgimg's own canvas, which
// it stands in for to paint opaque fills for less, given the same glyph
// interpolator (TestGlyphInterp compares that with gg's own).
func TestPNGCanvasDrawsVgimgPixels(t *testing.T) {
	for name, in := range pngFixtures(t) {
		t.Run(name, func(t *testing.T) {
			tl, err := newTimeline(context.Background(), in)
			require.NoError(t, err)
			want := vgimgPixels(tl, glyphInterp{})

			fast := newPNGCanvas(tl.w, tl.h)
			tl.draw(draw.New(fast))
			require.Equal(t, want.Rect, fast.img.Rect)
			if !bytes.Equal(want.Pix, fast.img.Pix) {
				diff := 0
				for i := range want.Pix {
					if want.Pix[i] != fast.img.Pix[i] {
						diff++
					}
				}
				t.Fatalf("%d of %d bytes differ from vgimg's", diff, len(want.Pix))
			}
		})
	}
}

// vgimgPixels is the timeline drawn by vgimg's canvas, its text through
// interp.
func vgimgPixels(tl *timeline, interp xdraw.Interpolator) *image.RGBA {
	pw, ph := tl.w/vg.Inch*vg.Length(dpi), tl.h/vg.Inch*vg.Length(dpi)
	img := image.NewRGBA(image.Rect(0, 0, int(pw+0.5), int(ph+0.5)))
	ctx := gg.NewContextForRGBA(img) // as vgimg makes its own
	ctx.SetLineCapButt()
	ctx.InvertY()
	ctx.SetInterpolator(interp)
	plain := vgimg.NewWith(vgimg.UseImageWithContext(img, ctx), vgimg.UseDPI(dpi))
	tl.draw(draw.New(plain))
	return plain.Image().(*image.RGBA)
}

// glyphInterp copies what moves by whole pixels, within rounding of gg's
// bilinear interpolation (at most 1 in 255 on a few edge pixels of the
// glyphs), and leaves every other transform to it, pixel for pixel.
func TestGlyphInterp(t *testing.T) {
	for name, in := range pngFixtures(t) {
		t.Run(name, func(t *testing.T) {
			tl, err := newTimeline(context.Background(), in)
			require.NoError(t, err)
			bilinear, copied := vgimgPixels(tl, xdraw.BiLinear), vgimgPixels(tl, glyphInterp{})
			diff, most := 0, 0
			for i := range bilinear.Pix {
				if d := int(bilinear.Pix[i]) - int(copied.Pix[i]); d != 0 {
					diff, most = diff+1, max(most, d, -d)
				}
			}
			assert.LessOrEqual(t, most, 1, "largest difference")
			assert.Less(t, diff, len(bilinear.Pix)/10000, "bytes off by one")
		})
	}
	glyph := image.NewAlpha(image.Rect(0, 0, 7, 9))
	for i := range glyph.Pix {
		glyph.Pix[i] = uint8(i * 37)
	}
	red := image.NewUniform(color.RGBA{R: 200, A: 255})
	for _, s2d := range []f64.Aff3{
		{1, 0, 3, 0, 1, 4},      // whole pixels: a copy
		{1, 0, 3.5, 0, 1, 4.25}, // a fraction of one
		{0, -1, 12, 1, 0, 2},    // turned a quarter
	} {
		want, got := image.NewRGBA(image.Rect(0, 0, 20, 20)), image.NewRGBA(image.Rect(0, 0, 20, 20))
		opts := &xdraw.Options{SrcMask: glyph}
		xdraw.BiLinear.Transform(want, s2d, red, glyph.Rect, xdraw.Over, opts)
		glyphInterp{}.Transform(got, s2d, red, glyph.Rect, xdraw.Over, opts)
		most := 0
		for i := range want.Pix {
			d := int(want.Pix[i]) - int(got.Pix[i])
			most = max(most, d, -d)
		}
		assert.LessOrEqual(t, most, 1, "%v: largest difference", s2d)
		if s2d[2] != 3 { // not a copy: gg's own pixels
			assert.Equal(t, want.Pix, got.Pix, "%v", s2d)
		}
		copied := image.NewRGBA(want.Rect)
		xdraw.Copy(copied, image.Point{X: 3, Y: 4}, red, glyph.Rect, xdraw.Over, opts)
		if s2d[2] == 3 {
			assert.Equal(t, copied.Pix, got.Pix, "a whole-pixel move is a copy")
		}
	}
}

// A fill whose path has a curve goes to vgimg, and so does a colour that
// is not opaque: both still land in the image.
func TestPNGCanvasFallbacks(t *testing.T) {
	for _, tc := range []struct {
		name string
		fill func(c draw.Canvas)
	}{
		{"arc", func(c draw.Canvas) {
			var p vg.Path
			p.Move(vg.Point{X: 30, Y: 30})
			p.Arc(vg.Point{X: 30, Y: 30}, 20, 0, 6.28)
			p.Close()
			c.SetColor(color.RGBA{R: 200, A: 255})
			c.Fill(p)
		}},
		{"translucent", func(c draw.Canvas) {
			c.SetColor(color.NRGBA{R: 200, A: 100})
			c.Fill(c.Rectangle.Path())
		}},
		{"push-pop", func(c draw.Canvas) {
			c.SetColor(color.RGBA{G: 200, A: 255})
			c.Push()
			c.SetColor(color.NRGBA{B: 200, A: 60})
			c.Pop()
			c.Fill(draw.Crop(c, 5, -5, 5, -5).Rectangle.Path())
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plain := vgimg.NewWith(vgimg.UseWH(60, 60), vgimg.UseDPI(dpi))
			tc.fill(draw.New(plain))
			fast := newPNGCanvas(60, 60)
			tc.fill(draw.New(fast))
			assert.Equal(t, plain.Image().(*image.RGBA).Pix, fast.img.Pix)
		})
	}
}

// encodePNG writes a PNG that decodes to the image it was given; an image
// that is not opaque keeps its alpha.
func TestEncodePNG(t *testing.T) {
	tl, err := newTimeline(context.Background(), gcPauseRun(t))
	require.NoError(t, err)
	c := newPNGCanvas(tl.w, tl.h)
	tl.draw(draw.New(c))
	ms := []*image.RGBA{c.img, translucent()}
	// Narrow images, each opaque and with one pixel not: the first, the
	// last, one in the middle.
	for w := 1; w <= 5; w++ {
		for _, clear := range []int{-1, 0, w*3 - 1, w + 1} {
			m := image.NewRGBA(image.Rect(0, 0, w, 3))
			for i := range m.Pix {
				m.Pix[i] = byte(i*29 + w)
			}
			for i := 3; i < len(m.Pix); i += 4 {
				m.Pix[i] = 255
			}
			if clear >= 0 {
				copy(m.Pix[4*clear:], []byte{0, 0, 0, 0}) // transparent
			}
			ms = append(ms, m)
		}
	}
	for _, m := range ms {
		var buf bytes.Buffer
		require.NoError(t, encodePNG(&buf, m))
		back, err := png.Decode(&buf)
		require.NoError(t, err)
		require.Equal(t, m.Rect, back.Bounds())
		got := image.NewRGBA(back.Bounds())
		for y := range m.Rect.Dy() {
			for x := range m.Rect.Dx() {
				got.Set(x, y, back.At(x, y))
			}
		}
		require.Equal(t, m.Pix, got.Pix)
	}
}

func translucent() *image.RGBA {
	m := image.NewRGBA(image.Rect(0, 0, 7, 5))
	for i := range m.Pix {
		m.Pix[i] = byte(i * 7)
	}
	for i := 3; i < len(m.Pix); i += 4 {
		m.Pix[i] = 255
	}
	m.Pix[3] = 0
	m.Pix[0], m.Pix[1], m.Pix[2] = 0, 0, 0
	return m
}
