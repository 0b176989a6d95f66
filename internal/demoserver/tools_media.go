package demoserver

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// The media are generated rather than embedded, so the bytes are small,
// always valid, and documented by the code that makes them.

const (
	imageSide       = 64
	audioSampleRate = 8000 // Hz
	audioSamples    = audioSampleRate / 4
	audioToneHz     = 440
)

func imageTool() server.ServerTool {
	return server.ServerTool{
		Tool: mcp.NewTool("image",
			annotated(pure),
			mcp.WithDescription("Returns a small PNG image (64x64, one colour)."),
		),
		Handler: func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			teal := color.RGBA{R: 0x2a, G: 0x9d, B: 0x8f, A: 0xff}
			data, err := solidPNG(imageSide, teal)
			if err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{
				mcp.NewImageContent(base64.StdEncoding.EncodeToString(data), "image/png"),
			}}, nil
		},
	}
}

// solidPNG encodes a side x side square of one colour.
func solidPNG(side int, c color.Color) ([]byte, error) {
	img := image.NewRGBA(image.Rect(0, 0, side, side))
	for y := range side {
		for x := range side {
			img.Set(x, y, c)
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil, fmt.Errorf("encoding the demo PNG: %w", err)
	}
	return buf.Bytes(), nil
}

func audioTool() server.ServerTool {
	return server.ServerTool{
		Tool: mcp.NewTool("audio",
			annotated(pure),
			mcp.WithDescription("Returns a short WAV sound (a quarter second of 440 Hz)."),
		),
		Handler: func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				mcp.NewAudioContent(base64.StdEncoding.EncodeToString(sineWAV()), "audio/wav"),
			}}, nil
		},
	}
}

// sineWAV is a canonical 44-byte-header PCM WAV: 8 kHz, 16-bit, mono, 0.25 s.
func sineWAV() []byte {
	const (
		channels      = 1
		bitsPerSample = 16
		blockAlign    = channels * bitsPerSample / 8
		dataSize      = audioSamples * blockAlign
	)
	var buf bytes.Buffer
	le := binary.LittleEndian
	buf.WriteString("RIFF")
	buf.Write(le.AppendUint32(nil, 36+dataSize))
	buf.WriteString("WAVEfmt ")
	buf.Write(le.AppendUint32(nil, 16)) // fmt chunk size
	buf.Write(le.AppendUint16(nil, 1))  // PCM
	buf.Write(le.AppendUint16(nil, channels))
	buf.Write(le.AppendUint32(nil, audioSampleRate))
	buf.Write(le.AppendUint32(nil, audioSampleRate*blockAlign)) // byte rate
	buf.Write(le.AppendUint16(nil, blockAlign))
	buf.Write(le.AppendUint16(nil, bitsPerSample))
	buf.WriteString("data")
	buf.Write(le.AppendUint32(nil, dataSize))
	for i := range audioSamples {
		v := 0.5 * math.Sin(2*math.Pi*audioToneHz*float64(i)/audioSampleRate)
		buf.Write(le.AppendUint16(nil, uint16(int16(v*math.MaxInt16))))
	}
	return buf.Bytes()
}
