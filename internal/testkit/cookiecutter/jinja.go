// Package cookiecutter renders a cookiecutter template in Go, independently of the code
// under test, so tests can check what Shipyard's generation produced against what the
// template says. It knows the Jinja subset Cloudcoil's template uses (raw blocks, if, for
// over a split string, the replace and trim filters, whitespace control) and refuses
// anything else with an error naming the construct, so a template that outgrows it fails
// a test instead of rendering wrongly.
package cookiecutter

import (
	"fmt"
	"regexp"
	"strings"
)

// node is one piece of a parsed template.
type node interface{}

type textNode string

type exprNode struct{ expr string }

type ifNode struct {
	cond string
	body []node
}

type forNode struct {
	variable, iterable string
	body               []node
}

var (
	tagStart = regexp.MustCompile(`\{\{|\{%`)
	endRaw   = regexp.MustCompile(`\{%(-?)\s*endraw\s*(-?)%\}`)
	forStmt  = regexp.MustCompile(`^for\s+(\w+)\s+in\s+(.+)$`)
)

// Render renders a template with ctx as the `cookiecutter` variables.
func Render(tmpl string, ctx map[string]string) (string, error) {
	nodes, rest, err := parse(tmpl, "")
	if err != nil {
		return "", err
	}
	if rest != "" {
		return "", fmt.Errorf("unexpected {%% %s %%}", rest)
	}
	var b strings.Builder
	if err := render(&b, nodes, scope{ctx: ctx}); err != nil {
		return "", err
	}
	return b.String(), nil
}

// parse reads nodes until the end of the template or an end tag of the open block
// (endif, endfor), returning the remaining template after it via the closure below.
func parse(tmpl, open string) ([]node, string, error) {
	p := &parser{src: tmpl}
	nodes, end, err := p.block(open)
	if err != nil {
		return nil, "", err
	}
	return nodes, end, nil
}

type parser struct {
	src        string
	stripStart bool // the previous tag ended with -%}: strip leading whitespace of the next text
}

func (p *parser) text(s string) node {
	if p.stripStart {
		s = strings.TrimLeft(s, " \t\r\n")
		p.stripStart = false
	}
	return textNode(s)
}

// block parses until an end tag matching open ("if", "for") or, with open "", the end.
// It returns the end tag's name ("" at the end of input).
func (p *parser) block(open string) ([]node, string, error) {
	var nodes []node
	for {
		loc := tagStart.FindStringIndex(p.src)
		if loc == nil {
			nodes = append(nodes, p.text(p.src))
			p.src = ""
			if open != "" {
				return nil, "", fmt.Errorf("{%% %s %%} is not closed", open)
			}
			return nodes, "", nil
		}
		before := p.src[:loc[0]]
		isExpr := p.src[loc[0]:loc[1]] == "{{"
		closer := "%}"
		if isExpr {
			closer = "}}"
		}
		body := p.src[loc[1]:]
		end := strings.Index(body, closer)
		if end < 0 {
			return nil, "", fmt.Errorf("unclosed tag at %q", truncate(p.src[loc[0]:]))
		}
		inner := body[:end]
		p.src = body[end+len(closer):]
		trimBefore := strings.HasPrefix(inner, "-")
		trimAfter := strings.HasSuffix(inner, "-")
		inner = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(inner, "-"), "-"))
		if trimBefore {
			before = strings.TrimRight(before, " \t\r\n")
		}
		nodes = append(nodes, p.text(before))
		p.stripStart = trimAfter
		if isExpr {
			nodes = append(nodes, exprNode{inner})
			continue
		}
		switch {
		case inner == "raw":
			m := endRaw.FindStringSubmatchIndex(p.src)
			if m == nil {
				return nil, "", fmt.Errorf("{%% raw %%} is not closed")
			}
			data := p.src[:m[0]]
			if trimAfter {
				data = strings.TrimLeft(data, " \t\r\n")
			}
			if m[3] > m[2] { // {%- endraw
				data = strings.TrimRight(data, " \t\r\n")
			}
			nodes = append(nodes, textNode(data))
			p.stripStart = m[5] > m[4]
			p.src = p.src[m[1]:]
		case strings.HasPrefix(inner, "if "):
			body, _, err := p.block("if")
			if err != nil {
				return nil, "", err
			}
			nodes = append(nodes, ifNode{cond: strings.TrimSpace(inner[3:]), body: body})
		case strings.HasPrefix(inner, "for "):
			m := forStmt.FindStringSubmatch(inner)
			if m == nil {
				return nil, "", fmt.Errorf("unsupported for statement %q", inner)
			}
			body, _, err := p.block("for")
			if err != nil {
				return nil, "", err
			}
			nodes = append(nodes, forNode{variable: m[1], iterable: strings.TrimSpace(m[2]), body: body})
		case inner == "endif" || inner == "endfor":
			if inner != "end"+open {
				return nil, "", fmt.Errorf("{%% %s %%} without a matching opening tag", inner)
			}
			return nodes, inner, nil
		default:
			return nil, "", fmt.Errorf("unsupported statement {%% %s %%}", inner)
		}
	}
}

func truncate(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// scope is the variables an expression sees: the cookiecutter context and loop variables.
type scope struct {
	ctx   map[string]string
	local map[string]string
}

func (s scope) with(name, value string) scope {
	local := map[string]string{name: value}
	for k, v := range s.local {
		if k != name {
			local[k] = v
		}
	}
	return scope{ctx: s.ctx, local: local}
}

func render(b *strings.Builder, nodes []node, s scope) error {
	for _, n := range nodes {
		switch n := n.(type) {
		case textNode:
			b.WriteString(string(n))
		case exprNode:
			v, err := s.eval(n.expr)
			if err != nil {
				return err
			}
			b.WriteString(v)
		case ifNode:
			v, err := s.eval(n.cond)
			if err != nil {
				return err
			}
			if v != "" {
				if err := render(b, n.body, s); err != nil {
					return err
				}
			}
		case forNode:
			items, err := s.iterate(n.iterable)
			if err != nil {
				return err
			}
			for _, item := range items {
				if err := render(b, n.body, s.with(n.variable, item)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

var (
	splitCall   = regexp.MustCompile(`^(.+)\.split\('([^']*)'\)$`)
	replaceCall = regexp.MustCompile(`^replace\('([^']*)',\s*'([^']*)'\)$`)
)

func (s scope) iterate(expr string) ([]string, error) {
	m := splitCall.FindStringSubmatch(expr)
	if m == nil {
		return nil, fmt.Errorf("unsupported loop iterable %q (only <variable>.split('<sep>'))", expr)
	}
	v, err := s.variable(strings.TrimSpace(m[1]))
	if err != nil {
		return nil, err
	}
	return strings.Split(v, m[2]), nil
}

// eval evaluates `variable | filter | …`.
func (s scope) eval(expr string) (string, error) {
	parts := strings.Split(expr, "|")
	v, err := s.variable(strings.TrimSpace(parts[0]))
	if err != nil {
		return "", err
	}
	for _, f := range parts[1:] {
		f = strings.TrimSpace(f)
		switch m := replaceCall.FindStringSubmatch(f); {
		case f == "trim":
			v = strings.TrimSpace(v)
		case m != nil:
			v = strings.ReplaceAll(v, m[1], m[2])
		default:
			return "", fmt.Errorf("unsupported filter %q in {{ %s }}", f, expr)
		}
	}
	return v, nil
}

func (s scope) variable(name string) (string, error) {
	if key, ok := strings.CutPrefix(name, "cookiecutter."); ok {
		v, found := s.ctx[key]
		if !found {
			return "", fmt.Errorf("undefined variable %s", name)
		}
		return v, nil
	}
	if v, ok := s.local[name]; ok {
		return v, nil
	}
	return "", fmt.Errorf("unsupported expression %q", name)
}
