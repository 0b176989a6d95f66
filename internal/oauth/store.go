package oauth

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/run-mcp/run-mcp/internal/safesocket"
)

// ConfigDirEnv names the variable that moves run-mcp's configuration
// directory (tests, CI, a user who keeps credentials elsewhere).
const ConfigDirEnv = "RUN_MCP_CONFIG_DIR"

// Store keeps each server's credentials in a file of its own, readable by
// this user alone, in a directory only they can use.
type Store struct {
	// Dir is the directory of the token files ("": DefaultDir()).
	Dir string
}

// DefaultDir is where tokens live: $RUN_MCP_CONFIG_DIR/oauth, else
// run-mcp/oauth under the user's config directory (~/.config on Linux,
// ~/Library/Application Support on macOS, %AppData% on Windows).
func DefaultDir() (string, error) {
	if d := os.Getenv(ConfigDirEnv); d != "" {
		return filepath.Join(d, "oauth"), nil
	}
	d, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("there is no config directory to keep tokens in (%v); set %s to a directory of yours", err, ConfigDirEnv)
	}
	return filepath.Join(d, "run-mcp", "oauth"), nil
}

func (s Store) dir() (string, error) {
	if s.Dir != "" {
		return s.Dir, nil
	}
	return DefaultDir()
}

// record is what is kept for one server.
type record struct {
	Server   string `json:"server"`
	Resource string `json:"resource,omitempty"`
	Issuer   string `json:"issuer,omitempty"`
	// TokenEndpoint is where a refresh goes.
	TokenEndpoint string        `json:"token_endpoint,omitempty"`
	Client        *clientRecord `json:"client,omitempty"`
	// Scopes are the scopes last asked for: a step-up asks for them and more.
	Scopes []string     `json:"scopes,omitempty"`
	Token  *tokenRecord `json:"token,omitempty"`
	Saved  time.Time    `json:"saved"`
}

// clientRecord is the client identity run-mcp used with an issuer.
type clientRecord struct {
	ID     string `json:"client_id"`
	Secret string `json:"client_secret,omitempty"`
	// Method is the token endpoint's client authentication: none,
	// client_secret_basic or client_secret_post.
	Method string `json:"token_endpoint_auth_method"`
	// Source is how it was obtained: pre-registered, metadata document or
	// dynamic registration.
	Source string `json:"source"`
	Issuer string `json:"issuer"`
	// RedirectURI is what a dynamic registration registered.
	RedirectURI string `json:"redirect_uri,omitempty"`
}

type tokenRecord struct {
	AccessToken  string    `json:"access_token"`
	TokenType    string    `json:"token_type,omitempty"`
	RefreshToken string    `json:"refresh_token,omitempty"`
	Expiry       time.Time `json:"expiry,omitzero"`
	Scope        string    `json:"scope,omitempty"`
}

// expired says the token is past its expiry, or within a few seconds of it.
func (t *tokenRecord) expired(now time.Time) bool {
	return !t.Expiry.IsZero() && now.Add(10*time.Second).After(t.Expiry)
}

// Key is the form a server's URL is kept under: lower-case scheme and
// host, no default port, no fragment.
func Key(server string) string {
	u, err := url.Parse(server)
	if err != nil {
		return server
	}
	c := *u
	c.Scheme, c.Host, c.Fragment, c.RawFragment, c.User = strings.ToLower(c.Scheme), strings.ToLower(c.Host), "", "", nil
	if p := c.Port(); (c.Scheme == "https" && p == "443") || (c.Scheme == "http" && p == "80") {
		c.Host = c.Hostname()
	}
	return c.String()
}

// Path is the file of server's credentials.
func (s Store) Path(server string) (string, error) {
	dir, err := s.dir()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(Key(server)))
	return filepath.Join(dir, hex.EncodeToString(sum[:16])+".json"), nil
}

// maxRecord bounds a token file.
const maxRecord = 1 << 20

// load reads server's record: nil, nil when there is none. A file or
// directory another user could read or plant is refused, saying how to fix
// it; nothing is created.
func (s Store) load(server string) (*record, error) {
	path, err := s.Path(server)
	if err != nil {
		return nil, err
	}
	if err := checkDir(filepath.Dir(path), false); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	f, err := openPrivate(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxRecord+1))
	if err != nil {
		return nil, fmt.Errorf("read the token file %s: %w", path, err)
	}
	var r record
	if len(b) > maxRecord || decodeRecord(b, &r) != nil {
		return nil, fmt.Errorf("the token file %s is damaged; remove it (run-mcp logout %s) and authorize again", path, server)
	}
	if Key(r.Server) != Key(server) {
		return nil, nil // another server's, under a colliding name: not ours to use
	}
	return &r, nil
}

func decodeRecord(b []byte, r *record) error { return json.Unmarshal(b, r) }

// save writes server's record atomically: a fresh owner-only file renamed
// over the old one, in an owner-only directory it creates if need be.
func (s Store) save(r *record) error {
	path, err := s.Path(r.Server)
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return fmt.Errorf("create the config directory %s: %w", filepath.Dir(dir), err)
	}
	if err := checkDir(dir, true); err != nil {
		return err
	}
	r.Saved = time.Now().UTC()
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := safesocket.WritePrivate(path, b); err != nil {
		return fmt.Errorf("write the token file %s: %w", path, err)
	}
	return nil
}

// Remove deletes server's credentials; false when there were none.
func (s Store) Remove(server string) (string, bool, error) {
	path, err := s.Path(server)
	if err != nil {
		return "", false, err
	}
	err = os.Remove(path)
	if errors.Is(err, fs.ErrNotExist) {
		return path, false, nil
	}
	if err != nil {
		return path, false, fmt.Errorf("remove the token file %s: %w", path, err)
	}
	return path, true, nil
}

// Held describes the credentials kept for a server, never their values.
type Held struct {
	Path     string    `json:"token_file"`
	Issuer   string    `json:"issuer,omitempty"`
	ClientID string    `json:"client_id,omitempty"`
	Client   string    `json:"client,omitempty"` // how the client was obtained
	Scope    string    `json:"scope,omitempty"`
	Expiry   time.Time `json:"expires_at,omitzero"`
	Refresh  bool      `json:"refreshable"`
	Saved    time.Time `json:"saved_at"`
}

// Held says what is kept for server (false: nothing).
func (s Store) Held(server string) (Held, bool, error) {
	path, err := s.Path(server)
	if err != nil {
		return Held{}, false, err
	}
	r, err := s.load(server)
	if err != nil || r == nil || r.Token == nil {
		return Held{Path: path}, false, err
	}
	h := Held{Path: path, Issuer: r.Issuer, Scope: r.Token.Scope, Expiry: r.Token.Expiry, Refresh: r.Token.RefreshToken != "", Saved: r.Saved}
	if r.Client != nil {
		h.ClientID, h.Client = r.Client.ID, r.Client.Source
	}
	return h, true, nil
}
