package configscan

// normaliseType maps each client's spelling of a transport to stdio, http or sse.
func normaliseType(s string) (string, bool) {
	switch lower(s) {
	case "stdio", "local":
		return "stdio", true
	case "http", "streamable-http", "streamable_http", "streamablehttp", "streamable":
		return "http", true
	case "sse":
		return "sse", true
	}
	return "", false
}

// resolveType says how the entry is reached: its declared type when it has
// one (Cline's older "transportType" too), else what its fields imply. It
// adds a problem when the fields cannot support that type.
func resolveType(obj map[string]any, e Entry, urlKey, remote string, p *problems) string {
	t := declaredType(obj, p)
	if t == "" {
		t = impliedType(e, urlKey, remote)
	}
	switch {
	case t == "stdio" && e.Command == "" && !hasKey(obj, "command"):
		p.add("type is stdio but there is no command; give the program to run")
	case (t == "http" || t == "sse") && e.URL == "" && !hasURLKey(obj):
		p.add("type is %s but there is no url; give the server's address", t)
	case t == "" && obj["source"] == "extension":
		p.add("provided by a Zed extension: its command is not in this file, so it cannot be launched from here")
	case t == "":
		p.add("no command and no url: nothing to start or connect to; add \"command\" for a local server or \"url\" for a remote one")
	}
	return t
}

func declaredType(obj map[string]any, p *problems) string {
	for _, key := range []string{"type", "transportType"} {
		raw, ok := obj[key]
		if !ok || raw == nil {
			continue
		}
		s, isString := raw.(string)
		if !isString {
			p.add("%s is %s, not a string such as \"stdio\", \"http\" or \"sse\"", key, kindOf(raw))
			return ""
		}
		if t, known := normaliseType(s); known {
			return t
		}
		p.add("%s %q is not one of stdio, http or sse", key, s)
		return lower(s)
	}
	return ""
}

func impliedType(e Entry, urlKey, remote string) string {
	switch {
	case e.Command != "":
		return "stdio"
	case urlKey == "httpUrl" || urlKey == "serverUrl":
		return "http"
	case urlKey == "url":
		return remote
	}
	return ""
}

func hasKey(obj map[string]any, key string) bool {
	v, ok := obj[key]
	return ok && v != nil
}

func hasURLKey(obj map[string]any) bool {
	return hasKey(obj, "url") || hasKey(obj, "httpUrl") || hasKey(obj, "serverUrl")
}
