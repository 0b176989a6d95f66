package demoserver

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

func echoTool() server.ServerTool {
	return server.ServerTool{
		Tool: mcp.NewTool("echo",
			annotated(pure),
			mcp.WithDescription("Echoes the message back."),
			mcp.WithString("message", mcp.Required(), mcp.Description("Text to echo back.")),
		),
		Handler: func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			message, err := req.RequireString("message")
			if err != nil {
				return mcp.NewToolResultError(err.Error()), nil
			}
			return mcp.NewToolResultText("echo: " + message), nil
		},
	}
}

// addOutputSchema declares the structuredContent of add, so clients that
// check output schemas have one to check.
const addOutputSchema = `{"type":"object","properties":{"sum":{"type":"number","description":"a + b"}},"required":["sum"]}`

func addTool() server.ServerTool {
	return server.ServerTool{
		Tool: mcp.NewTool("add",
			annotated(pure),
			mcp.WithDescription("Adds two numbers; the sum also comes back as structured content."),
			mcp.WithNumber("a", mcp.Required(), mcp.Description("First number.")),
			mcp.WithNumber("b", mcp.Required(), mcp.Description("Second number.")),
			mcp.WithRawOutputSchema(json.RawMessage(addOutputSchema)),
		),
		Handler: func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			a, err := req.RequireFloat("a")
			if err != nil {
				return mcp.NewToolResultError(err.Error()), nil
			}
			b, err := req.RequireFloat("b")
			if err != nil {
				return mcp.NewToolResultError(err.Error()), nil
			}
			sum := a + b
			text := strconv.FormatFloat(sum, 'f', -1, 64)
			return mcp.NewToolResultStructured(map[string]any{"sum": sum}, text), nil
		},
	}
}

const defaultFailMessage = "the demo tool failed on purpose"

func failTool() server.ServerTool {
	return server.ServerTool{
		Tool: mcp.NewTool("fail",
			annotated(pure),
			mcp.WithDescription("Always fails: returns a tool error (isError) with the message."),
			mcp.WithString("message", mcp.DefaultString(defaultFailMessage), mcp.Description("Error text to return.")),
		),
		Handler: func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultError(req.GetString("message", defaultFailMessage)), nil
		},
	}
}

// maxBigText bounds big_text well above the 70,000,000 characters the 64 MB
// cap tests use, but below what would hurt a developer's machine.
const maxBigText = 200_000_000

func bigTextTool() server.ServerTool {
	return server.ServerTool{
		Tool: mcp.NewTool("big_text",
			annotated(pure),
			mcp.WithDescription("Returns one text item of exactly the given number of characters."),
			mcp.WithInteger("chars", mcp.Required(), mcp.Min(0), mcp.Max(maxBigText),
				mcp.Description("Exact length of the text, in characters.")),
		),
		Handler: func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			n, err := req.RequireInt("chars")
			if err != nil {
				return mcp.NewToolResultError(err.Error()), nil
			}
			if n < 0 || n > maxBigText {
				return mcp.NewToolResultErrorf("chars must be between 0 and %d, got %d", maxBigText, n), nil
			}
			return mcp.NewToolResultText(bigText(n)), nil
		},
	}
}

// bigTextLineTail follows the line number on every big_text line; readable,
// so a truncated output is easy to recognise by eye.
const bigTextLineTail = " lorem ipsum dolor sit amet, consectetur adipiscing elit\n"

// bigText returns exactly n ASCII characters of numbered lines, the last one
// cut short where n falls.
func bigText(n int) string {
	var b strings.Builder
	b.Grow(n)
	line := make([]byte, 0, 80)
	for i := int64(1); b.Len() < n; i++ {
		line = append(appendPadded(append(line[:0], "line "...), i, 6), bigTextLineTail...)
		if rest := n - b.Len(); len(line) > rest {
			line = line[:rest]
		}
		b.Write(line)
	}
	return b.String()
}

// appendPadded appends i in decimal, zero-padded to width digits; cheaper
// than fmt for the millions of lines big_text can produce.
func appendPadded(dst []byte, i int64, width int) []byte {
	digits := strconv.AppendInt(nil, i, 10)
	for pad := width - len(digits); pad > 0; pad-- {
		dst = append(dst, '0')
	}
	return append(dst, digits...)
}

// logLevels lists the MCP log levels, least severe first.
func logLevels() []string {
	return []string{
		string(mcp.LoggingLevelDebug), string(mcp.LoggingLevelInfo), string(mcp.LoggingLevelNotice),
		string(mcp.LoggingLevelWarning), string(mcp.LoggingLevelError), string(mcp.LoggingLevelCritical),
		string(mcp.LoggingLevelAlert), string(mcp.LoggingLevelEmergency),
	}
}

func (d *demo) logTool() server.ServerTool {
	return server.ServerTool{
		Tool: mcp.NewTool("log",
			annotated(emits),
			mcp.WithDescription("Sends a notifications/message log entry to the client at the given level."),
			mcp.WithString("level", mcp.Enum(logLevels()...), mcp.DefaultString(string(mcp.LoggingLevelInfo)),
				mcp.Description("Log level.")),
			mcp.WithString("message", mcp.Required(), mcp.Description("Text of the log entry.")),
			mcp.WithNumber("count", mcp.DefaultNumber(1), mcp.Min(1), mcp.Max(1000),
				mcp.Description("How many entries to send in a burst (numbered #1, #2, … when more than one).")),
		),
		Handler: d.handleLog,
	}
}

func (d *demo) handleLog(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	message, err := req.RequireString("message")
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	level := mcp.LoggingLevel(req.GetString("level", string(mcp.LoggingLevelInfo)))
	if !validLogLevel(level) {
		return mcp.NewToolResultErrorf("unknown level %q (want one of %s)", level, strings.Join(logLevels(), ", ")), nil
	}
	count := max(int(req.GetFloat("count", 1)), 1)
	for i := 1; i <= count; i++ {
		text := message
		if count > 1 {
			text = fmt.Sprintf("%s #%d", message, i)
		}
		notification := mcp.NewLoggingMessageNotification(level, serverName, text)
		if err := d.srv.SendLogMessageToClient(ctx, notification); err != nil {
			return mcp.NewToolResultErrorf("could not send the log entry: %v", err), nil
		}
	}
	// mcp-go drops entries below the client's level without a word; say so,
	// or a newcomer sees "logged" and no log.
	if why := logFiltered(ctx, level); why != "" {
		return mcp.NewToolResultText("logged (but not sent: " + why + ")"), nil
	}
	return mcp.NewToolResultText("logged"), nil
}

func validLogLevel(level mcp.LoggingLevel) bool {
	return slices.Contains(logLevels(), string(level))
}

// logFiltered explains why an entry at level did not go out, or returns "".
// Legacy clients set a level per session (error until they call
// logging/setLevel); 2026 clients declare one per request, or get nothing.
func logFiltered(ctx context.Context, level mcp.LoggingLevel) string {
	if info := server.RequestProtocolInfoFromContext(ctx); info != nil && info.Modern {
		if info.LogLevel == "" {
			return "this request asked for no log level"
		}
		if !level.ShouldSendTo(info.LogLevel) {
			return fmt.Sprintf("this request asked for %s and above", info.LogLevel)
		}
		return ""
	}
	session, ok := server.ClientSessionFromContext(ctx).(server.SessionWithLogging)
	if ok && !level.ShouldSendTo(session.GetLogLevel()) {
		return fmt.Sprintf("the client's log level is %s; set it with logging/setLevel", session.GetLogLevel())
	}
	return ""
}
