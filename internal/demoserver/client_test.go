package demoserver

import (
	"context"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

func TestAskNameAccepted(t *testing.T) {
	s := connect(t, Options{}, legacy())
	wantText(t, s.call(t, "ask_name", nil), "accepted: name=Ada colour=red")
	if got := <-s.user.asked; got != askNameMessage {
		t.Errorf("asked %q", got)
	}
}

func TestAskNameDeclinedAndCancelled(t *testing.T) {
	for action, want := range map[mcp.ElicitationResponseAction]string{
		mcp.ElicitationResponseActionDecline: "declined",
		mcp.ElicitationResponseActionCancel:  "cancelled",
	} {
		t.Run(string(action), func(t *testing.T) {
			user := &fakeUser{action: action, asked: make(chan string, 1)}
			s := connectWith(t, Options{}, user, legacy(), client.WithElicitationHandler(user))
			wantText(t, s.call(t, "ask_name", nil), want)
		})
	}
}

func TestAskNameWithoutTheCapability(t *testing.T) {
	s := connectWith(t, Options{}, nil, legacy())
	r := s.call(t, "ask_name", nil)
	if !r.IsError || !strings.Contains(text(t, r), "did not declare the elicitation capability") {
		t.Errorf("got isError=%v %q", r.IsError, text(t, r))
	}
}

func TestAskLLM(t *testing.T) {
	s := connect(t, Options{}, legacy())
	wantText(t, s.call(t, "ask_llm", map[string]any{"prompt": "what is MCP?"}), "model heard: what is MCP?")
}

func TestAskLLMRefused(t *testing.T) {
	s := connectWith(t, Options{}, nil, legacy(), client.WithSamplingHandler(&fakeModel{refuse: true}))
	r := s.call(t, "ask_llm", map[string]any{"prompt": "hi"})
	if got := text(t, r); !r.IsError || !strings.HasPrefix(got, "sampling was refused: ") || !strings.Contains(got, "the user said no") {
		t.Errorf("got isError=%v %q", r.IsError, got)
	}
}

func TestListRoots(t *testing.T) {
	s := connect(t, Options{}, legacy())
	wantText(t, s.call(t, "list_roots", nil), "file:///work/demo")

	empty := connectWith(t, Options{}, nil, legacy(), client.WithRootsHandler(&fakeRoots{}))
	wantText(t, empty.call(t, "list_roots", nil), "no roots")
}

func TestCounterSubscribeAndBump(t *testing.T) {
	s := connect(t, Options{}, legacy())
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	read := func() string {
		t.Helper()
		var req mcp.ReadResourceRequest
		req.Params.URI = counterURI
		res, err := s.c.ReadResource(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		return res.Contents[0].(mcp.TextResourceContents).Text
	}
	if got := read(); got != "0" {
		t.Fatalf("counter starts at %q", got)
	}
	// Not subscribed yet: a bump tells nobody.
	wantText(t, s.call(t, "bump_counter", nil), "1")

	var sub mcp.SubscribeRequest
	sub.Params.URI = counterURI
	if err := s.c.Subscribe(ctx, sub); err != nil {
		t.Fatal(err)
	}
	wantText(t, s.call(t, "bump_counter", nil), "2")
	eventually(t, "resources/updated", func() bool {
		return len(s.notes.withMethod(mcp.MethodNotificationResourceUpdated)) > 0
	})
	notes := s.notes.withMethod(mcp.MethodNotificationResourceUpdated)
	if len(notes) != 1 || notes[0].Params.AdditionalFields["uri"] != counterURI {
		t.Errorf("updates: %+v", notes)
	}
	if got := read(); got != "2" {
		t.Errorf("counter reads %q after two bumps", got)
	}
}

func TestEchoTemplateAndGreetPrompt(t *testing.T) {
	s := connect(t, Options{}, legacy())
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	var read mcp.ReadResourceRequest
	read.Params.URI = "demo://echo/hello"
	res, err := s.c.ReadResource(ctx, read)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Contents[0].(mcp.TextResourceContents).Text; got != "hello" {
		t.Errorf("template read %q", got)
	}
	var get mcp.GetPromptRequest
	get.Params.Name = "greet"
	get.Params.Arguments = map[string]string{"name": "Ada"}
	prompt, err := s.c.GetPrompt(ctx, get)
	if err != nil {
		t.Fatal(err)
	}
	if len(prompt.Messages) != 1 || prompt.Messages[0].Role != mcp.RoleUser ||
		prompt.Messages[0].Content.(mcp.TextContent).Text != "Say hello to Ada." {
		t.Errorf("greet = %+v", prompt.Messages)
	}
}

func TestAddToolAnnouncesTheNewList(t *testing.T) {
	s := connect(t, Options{}, legacy())
	wantText(t, s.call(t, "add_tool", map[string]any{"name": "shiny"}), "added shiny")
	eventually(t, "tools/list_changed", func() bool {
		return len(s.notes.withMethod(mcp.MethodNotificationToolsListChanged)) > 0
	})
	if _, ok := s.toolNames(t)["shiny"]; !ok {
		t.Fatal("shiny is not listed")
	}
	wantText(t, s.call(t, "shiny", map[string]any{"message": "hi"}), "shiny: hi")
	if r := s.call(t, "add_tool", map[string]any{"name": "echo"}); !r.IsError {
		t.Error("adding a tool over echo should be a tool error")
	}
}

// TestModernEra lets the client negotiate: mcp-go's server answers
// server/discover, so the connection is 2026-07-28 and elicitation goes
// through an input_required round trip instead of elicitation/create.
func TestModernEra(t *testing.T) {
	s := connect(t, Options{})
	if got := s.c.ProtocolVersion(); got != mcp.ProtocolVersion20260728 {
		t.Fatalf("negotiated %q", got)
	}
	wantText(t, s.call(t, "echo", map[string]any{"message": "modern"}), "echo: modern")
	wantText(t, s.call(t, "ask_name", nil), "accepted: name=Ada colour=red")
	wantText(t, s.call(t, "ask_llm", map[string]any{"prompt": "hi"}), "model heard: hi")
	wantText(t, s.call(t, "list_roots", nil), "file:///work/demo")
}

// TestModernListenGetsCounterUpdates follows a subscriptions/listen stream:
// the update carries the stream's subscription id, and stops with it.
func TestModernListenGetsCounterUpdates(t *testing.T) {
	s := connect(t, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	stop, err := s.c.ListenAsync(ctx, mcp.SubscriptionFilter{ResourceSubscriptions: []string{counterURI}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "the subscription acknowledgement", func() bool {
		return len(s.notes.withMethod(mcp.MethodNotificationSubscriptionsAcknowledged)) > 0
	})
	wantText(t, s.call(t, "bump_counter", nil), "1")
	eventually(t, "resources/updated", func() bool {
		return len(s.notes.withMethod(mcp.MethodNotificationResourceUpdated)) > 0
	})
	update := s.notes.withMethod(mcp.MethodNotificationResourceUpdated)[0]
	if update.Params.AdditionalFields["uri"] != counterURI || update.Params.Meta[mcp.MetaKeySubscriptionID] == nil {
		t.Errorf("update %+v", update.Params)
	}
	stop()
}
