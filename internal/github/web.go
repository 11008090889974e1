package github

import (
	"fmt"
	"net/url"
	"strings"
)

// DefaultWebURL is github.com's web and git root.
const DefaultWebURL = "https://github.com/"

// WebURL derives the web and git root of a GitHub instance from its REST API base, so
// that one setting (--github-api) names the host: api.github.com is github.com's; a GitHub
// Enterprise Server API, https://HOST/api/v3/, is https://HOST/'s. Any other base (a proxy
// or a test server speaking github.com's API) stands for github.com. The result ends in /.
func WebURL(apiBase string) (string, error) {
	if apiBase == "" {
		return DefaultWebURL, nil
	}
	u, err := url.Parse(apiBase)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") || u.User != nil {
		return "", fmt.Errorf("GitHub API %q: want http(s)://host[/path] without credentials", apiBase)
	}
	if prefix, ok := strings.CutSuffix(strings.TrimSuffix(u.Path, "/"), "/api/v3"); ok {
		return u.Scheme + "://" + u.Host + prefix + "/", nil
	}
	return DefaultWebURL, nil
}
