package reports

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// mathText renders the inline TeX math of a claim's quote ($...$) as plain
// Unicode text, for report.html and report.md: "$> 1.1\times$ at
// $d = 768$" becomes "> 1.1× at d = 768". Symbols become their characters
// (\times ×, \le ≤, \approx ≈, Greek letters, ...), ^ and _ of digits and signs become
// superscripts and subscripts (10^{-3} -> 10⁻³), \frac{a}{b} becomes a/b,
// \text{..}, \mathrm{..} and the like keep their argument, and braces
// and spacing commands go. An escaped dollar (\$) stays a dollar; a lone
// $ without its closing one is left as it is, as is text outside math.
func mathText(s string) string {
	if !strings.Contains(s, "$") {
		return s
	}
	var b strings.Builder
	for {
		open := dollar(s, 0)
		if open < 0 {
			break
		}
		end := 1
		if strings.HasPrefix(s[open:], "$$") {
			end = 2
		}
		closing := dollar(s, open+end)
		if closing < 0 {
			break
		}
		b.WriteString(unescapeDollar(s[:open]))
		b.WriteString(texToUnicode(s[open+end : closing]))
		if end == 2 && strings.HasPrefix(s[closing:], "$$") {
			closing++
		}
		s = s[closing+1:]
	}
	b.WriteString(unescapeDollar(s))
	return b.String()
}

// dollar is the index of the first unescaped $ of s at or after i, or -1.
func dollar(s string, i int) int {
	for ; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '$':
			return i
		}
	}
	return -1
}

func unescapeDollar(s string) string { return strings.ReplaceAll(s, `\$`, "$") }

// texSymbols maps TeX control words to their Unicode characters.
var texSymbols = map[string]string{
	"times": "×", "cdot": "·", "div": "÷", "pm": "±", "mp": "∓",
	"le": "≤", "leq": "≤", "ge": "≥", "geq": "≥", "ne": "≠", "neq": "≠",
	"lt": "<", "gt": ">", "ll": "≪", "gg": "≫",
	"approx": "≈", "sim": "~", "simeq": "≃", "equiv": "≡", "propto": "∝",
	"to": "→", "rightarrow": "→", "leftarrow": "←", "Rightarrow": "⇒", "mapsto": "↦",
	"infty": "∞", "partial": "∂", "sum": "∑", "prod": "∏", "sqrt": "√",
	"in": "∈", "ldots": "…", "dots": "…", "cdots": "⋯",
	"alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "varepsilon": "ε",
	"zeta": "ζ", "eta": "η", "theta": "θ", "kappa": "κ", "lambda": "λ", "mu": "μ",
	"nu": "ν", "xi": "ξ", "pi": "π", "rho": "ρ", "sigma": "σ", "tau": "τ",
	"phi": "φ", "varphi": "φ", "chi": "χ", "psi": "ψ", "omega": "ω",
	"Gamma": "Γ", "Delta": "Δ", "Theta": "Θ", "Lambda": "Λ", "Pi": "Π",
	"Sigma": "Σ", "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω",
	"%": "%", "$": "$", "&": "&", "#": "#", "_": "_", "{": "{", "}": "}",
	",": " ", ";": " ", ":": " ", "!": "", " ": " ", "quad": " ", "qquad": " ",
	"left": "", "right": "", "big": "", "Big": "", "displaystyle": "",
}

// texArg holds the commands whose braced argument is kept as text.
var texArg = map[string]bool{
	"text": true, "textrm": true, "textit": true, "textbf": true, "mathrm": true, "mathit": true,
	"mathbf": true, "mathsf": true, "mathtt": true, "operatorname": true, "mbox": true, "emph": true,
}

var (
	superscript = strings.NewReplacer("0", "⁰", "1", "¹", "2", "²", "3", "³", "4", "⁴", "5", "⁵",
		"6", "⁶", "7", "⁷", "8", "⁸", "9", "⁹", "-", "⁻", "+", "⁺", "=", "⁼", "(", "⁽", ")", "⁾", "n", "ⁿ", "i", "ⁱ")
	subscript = strings.NewReplacer("0", "₀", "1", "₁", "2", "₂", "3", "₃", "4", "₄", "5", "₅",
		"6", "₆", "7", "₇", "8", "₈", "9", "₉", "-", "₋", "+", "₊", "=", "₌", "(", "₍", ")", "₎")
	// scriptable is what the replacers above turn wholly into script characters.
	supOK = regexp.MustCompile(`^[0-9+\-=()ni]+$`)
	subOK = regexp.MustCompile(`^[0-9+\-=()]+$`)
)

// texToUnicode renders the inside of one $...$.
func texToUnicode(m string) string {
	var b strings.Builder
	for i := 0; i < len(m); {
		c := m[i]
		switch {
		case c == '\\':
			name, n := texCommand(m[i+1:])
			i += 1 + n
			switch {
			case name == "frac":
				num, n1 := texGroup(m[i:])
				den, n2 := texGroup(m[i+n1:])
				i += n1 + n2
				b.WriteString(texToUnicode(num) + "/" + texToUnicode(den))
			case texArg[name]:
				arg, n := texGroup(m[i:])
				i += n
				b.WriteString(texToUnicode(arg))
			default:
				sym, ok := texSymbols[name]
				if !ok {
					sym = name // an unknown command (\log, \max): its name, readable
				}
				b.WriteString(sym)
				// TeX eats the space after a control word; text keeps it
				// after operators and words (≈ 2, log n), not after a
				// letter (\mu s -> μs).
				if r := []rune(sym); len(r) == 1 && unicode.IsLetter(r[0]) && i < len(m) && m[i] == ' ' {
					i++
				}
			}
		case c == '^' || c == '_':
			arg, n := texGroup(m[i+1:])
			i += 1 + n
			t := texToUnicode(arg)
			switch {
			case c == '^' && supOK.MatchString(t):
				b.WriteString(superscript.Replace(t))
			case c == '_' && subOK.MatchString(t):
				b.WriteString(subscript.Replace(t))
			case len([]rune(t)) == 1:
				b.WriteString(string(c) + t)
			default:
				b.WriteString(string(c) + "(" + t + ")")
			}
		case c == '{' || c == '}':
			i++
		case c == '~':
			b.WriteByte(' ')
			i++
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

// texCommand reads a control word (letters) or control symbol (one
// character) after a backslash; n is the bytes it took.
func texCommand(s string) (name string, n int) {
	if s == "" {
		return "", 0
	}
	for n < len(s) && s[n] < unicode.MaxASCII && unicode.IsLetter(rune(s[n])) {
		n++
	}
	if n == 0 {
		return s[:1], 1
	}
	return s[:n], n
}

// texGroup reads one argument: a braced group (its inside), a command, or
// one character, after optional spaces; n is the bytes it took.
func texGroup(s string) (arg string, n int) {
	for n < len(s) && s[n] == ' ' {
		n++
	}
	if n == len(s) {
		return "", n
	}
	switch s[n] {
	case '{':
		depth := 0
		for j := n; j < len(s); j++ {
			switch s[j] {
			case '{':
				depth++
			case '}':
				depth--
				if depth == 0 {
					return s[n+1 : j], j + 1
				}
			}
		}
		return s[n+1:], len(s)
	case '\\':
		_, k := texCommand(s[n+1:])
		return s[n : n+1+k], n + 1 + k
	}
	_, size := utf8.DecodeRuneInString(s[n:])
	return s[n : n+size], n + size
}
