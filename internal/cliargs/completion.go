package cliargs

import (
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// Shells are the shells Completion writes a script for.
func Shells() []string { return []string{"bash", "zsh", "fish"} }

// Values returns the words the flag of a command takes (command is its
// path, "crds capture", "" for the program itself; flag its long name), or
// the words of its positional arguments when flag is "". nil means any word.
//
// command may also be a path and one of its boolean flags, "audit
// --from-cluster": where the words differ from the command's, that flag is
// a mode, and once it is typed the script completes the mode's words.
type Values func(command, flag string) []string

// Completion returns the completion script for shell, for the program bin
// with app's commands and flags. The script holds the whole command tree,
// so that completing never runs the program: a TAB after `resume` must not
// start a walk. It completes command names, the flags of the command typed
// so far, and the values that values knows (-o's formats); files where a
// flag takes a value it does not know.
func Completion(shell, bin string, app *cli.App, values Values) (string, error) {
	tree := completionTree(app, values)
	fn := "__" + strings.NewReplacer("-", "_", ".", "_").Replace(bin)
	switch shell {
	case "bash":
		return bashScript(bin, fn, tree), nil
	case "zsh":
		return zshScript(bin, fn, tree), nil
	case "fish":
		return fishScript(bin, fn, tree), nil
	}
	return "", fmt.Errorf("no completion for shell %q (want %s)", shell, strings.Join(Shells(), ", "))
}

// completionNode is what a shell completes after one command path.
type completionNode struct {
	path       string   // "" for the program, "crds capture", "audit --from-cluster"
	commands   []string // words that name a subcommand, or the positional values
	flags      []string // every flag, long and short, with dashes
	valueFlags []string // the flags that take a value
	modes      []string // the boolean flags after which other words complete (Values)
	values     map[string][]string
}

func completionTree(app *cli.App, values Values) []completionNode {
	var nodes []completionNode
	var walk func(path string, flags []cli.Flag, commands []*cli.Command)
	walk = func(path string, flags []cli.Flag, commands []*cli.Command) {
		n := completionNode{path: path, values: map[string][]string{}}
		for _, c := range commands {
			if !c.Hidden && c.Name != "help" {
				n.commands = append(n.commands, c.Names()...)
			}
		}
		if len(n.commands) == 0 {
			n.commands = values(path, "")
		}
		for _, f := range flags {
			if hidden(f) {
				continue
			}
			words := flagWords(f)
			n.flags = append(n.flags, words...)
			if takesValue([]cli.Flag{f}, words[0]) {
				n.valueFlags = append(n.valueFlags, words...)
				if vs := values(path, f.Names()[0]); len(vs) > 0 {
					for _, w := range words {
						n.values[w] = vs
					}
				}
			}
		}
		if !slices.Contains(n.flags, "--help") {
			n.flags = append(n.flags, "--help", "-h")
		}
		modes := modeNodes(n, flags, values)
		for _, m := range modes {
			n.modes = append(n.modes, strings.TrimPrefix(m.path, path+" "))
		}
		nodes = append(append(nodes, n), modes...)
		for _, c := range commands {
			if !c.Hidden && c.Name != "help" {
				walk(strings.TrimSpace(path+" "+c.Name), c.Flags, c.Subcommands)
			}
		}
	}
	walk("", app.Flags, app.Commands)
	return nodes
}

// modeNodes are the nodes of n's modes: n after one of its boolean flags
// whose value flags take other words (Values).
func modeNodes(n completionNode, flags []cli.Flag, values Values) []completionNode {
	var modes []completionNode
	for _, f := range flags {
		if _, isBool := f.(*cli.BoolFlag); !isBool || hidden(f) {
			continue
		}
		m := n
		m.path = strings.TrimSpace(n.path + " --" + f.Names()[0])
		m.values = map[string][]string{}
		differs := false
		for _, vf := range flags {
			words := flagWords(vf)
			if !slices.Contains(n.valueFlags, words[0]) {
				continue
			}
			vs := values(m.path, vf.Names()[0])
			differs = differs || (vs != nil && !slices.Equal(vs, n.values[words[0]]))
			for _, w := range words {
				if vs != nil {
					m.values[w] = vs
				}
			}
		}
		if differs {
			modes = append(modes, m)
		}
	}
	return modes
}

func hidden(f cli.Flag) bool {
	v, ok := f.(cli.VisibleFlag)
	return ok && !v.IsVisible()
}

// flagWords are a flag's names as typed: --long, -s.
func flagWords(f cli.Flag) []string {
	var words []string
	for _, n := range f.Names() {
		if len(n) == 1 {
			words = append(words, "-"+n)
		} else {
			words = append(words, "--"+n)
		}
	}
	return words
}

// shellCase writes one arm of a sh case statement per node: the key, and
// the words it prints.
func shellCase(b *strings.Builder, key func(completionNode) string, words func(completionNode) []string, nodes []completionNode) {
	for _, n := range nodes {
		if ws := words(n); len(ws) > 0 {
			fmt.Fprintf(b, "        %s) echo %s ;;\n", shellQuote(key(n)), shellQuote(strings.Join(ws, " ")))
		}
	}
}

// shellQuote single-quotes s for sh, bash, zsh and fish alike.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// wordsFunctions writes the sh functions both bash and zsh read the tree
// from: fn_words KIND PATH and fn_values PATH FLAG.
func wordsFunctions(b *strings.Builder, fn string, nodes []completionNode) {
	fmt.Fprintf(b, "# %s_words KIND PATH prints the commands, flags or value flags after PATH.\n", fn)
	fmt.Fprintf(b, "%s_words() {\n    case \"$1:$2\" in\n", fn)
	shellCase(b, func(n completionNode) string { return "commands:" + n.path }, func(n completionNode) []string { return n.commands }, nodes)
	shellCase(b, func(n completionNode) string { return "flags:" + n.path }, func(n completionNode) []string { return n.flags }, nodes)
	shellCase(b, func(n completionNode) string { return "valueflags:" + n.path }, func(n completionNode) []string { return n.valueFlags }, nodes)
	shellCase(b, func(n completionNode) string { return "modes:" + n.path }, func(n completionNode) []string { return n.modes }, nodes)
	b.WriteString("    esac\n}\n\n")
	fmt.Fprintf(b, "# %s_values PATH FLAG prints the values FLAG takes after PATH.\n", fn)
	fmt.Fprintf(b, "%s_values() {\n    case \"$1:$2\" in\n", fn)
	for _, n := range nodes {
		for _, f := range n.flags {
			if vs, ok := n.values[f]; ok {
				fmt.Fprintf(b, "        %s) echo %s ;;\n", shellQuote(n.path+":"+f), shellQuote(strings.Join(vs, " ")))
			}
		}
	}
	b.WriteString("    esac\n}\n\n")
	// The walk over the words typed so far, shared by bash and zsh: it sets
	// cmdpath (not path, which zsh ties to $PATH).
	fmt.Fprintf(b, `# %[1]s_path WORD... prints the command path the words name, flags and
# their values skipped, and the mode flag typed last after it, if any.
%[1]s_path() {
    local cmdpath="" base="" w skip=0
    for w in "$@"; do
        if [ "$skip" = 1 ]; then skip=0; continue; fi
        case "$w" in
            --) break ;;
            -*=*) ;;
            -*) case " $(%[1]s_words valueflags "$cmdpath") " in *" $w "*) skip=1 ;; esac
                case " $(%[1]s_words modes "$base") " in *" $w "*) cmdpath="${base:+$base }$w" ;; esac ;;
            *) case " $(%[1]s_words commands "$cmdpath") " in *" $w "*) base="${base:+$base }$w"; cmdpath="$base" ;; esac ;;
        esac
    done
    echo "$cmdpath"
}

`, fn)
}

func bashScript(bin, fn string, nodes []completionNode) string {
	var b strings.Builder
	fmt.Fprintf(&b, `# bash completion for %[1]s, written by "%[1]s completion bash".
# Now:      source <(%[1]s completion bash)
# For good: %[1]s completion bash > ~/.local/share/bash-completion/completions/%[1]s

`, bin)
	wordsFunctions(&b, fn, nodes)
	fmt.Fprintf(&b, `%[1]s_complete() {
    local cur="${COMP_WORDS[COMP_CWORD]}" prev="" cmdpath values
    [ "$COMP_CWORD" -gt 1 ] && prev="${COMP_WORDS[COMP_CWORD-1]}"
    cmdpath="$(%[1]s_path "${COMP_WORDS[@]:1:COMP_CWORD-1}")"
    COMPREPLY=()
    case "$prev" in
        -*=*) ;;
        -*)
            case " $(%[1]s_words valueflags "$cmdpath") " in
                *" $prev "*)
                    values="$(%[1]s_values "$cmdpath" "$prev")"
                    # A value it does not know: bash completes a file name (-o default).
                    [ -n "$values" ] && COMPREPLY=($(compgen -W "$values" -- "$cur"))
                    return 0 ;;
            esac ;;
    esac
    case "$cur" in
        -*) COMPREPLY=($(compgen -W "$(%[1]s_words flags "$cmdpath")" -- "$cur")) ;;
        *) COMPREPLY=($(compgen -W "$(%[1]s_words commands "$cmdpath")" -- "$cur")) ;;
    esac
    return 0
}

complete -o default -F %[1]s_complete %[2]s
`, fn, bin)
	return b.String()
}

func zshScript(bin, fn string, nodes []completionNode) string {
	var b strings.Builder
	fmt.Fprintf(&b, `#compdef %[1]s
# zsh completion for %[1]s, written by "%[1]s completion zsh".
# Now:      source <(%[1]s completion zsh)
# For good: %[1]s completion zsh > "${fpath[1]}/_%[1]s"   (then compinit)

`, bin)
	wordsFunctions(&b, fn, nodes)
	fmt.Fprintf(&b, `%[1]s_complete() {
    local cur="${words[CURRENT]}" prev="" cmdpath values
    (( CURRENT > 2 )) && prev="${words[CURRENT-1]}"
    cmdpath="$(%[1]s_path "${(@)words[2,CURRENT-1]}")"
    case "$prev" in
        -*=*) ;;
        -*)
            case " $(%[1]s_words valueflags "$cmdpath") " in
                *" $prev "*)
                    values="$(%[1]s_values "$cmdpath" "$prev")"
                    if [[ -n "$values" ]]; then compadd -- ${=values}; else _files; fi
                    return ;;
            esac ;;
    esac
    case "$cur" in
        -*) compadd -- ${=$(%[1]s_words flags "$cmdpath")} ;;
        *) values="$(%[1]s_words commands "$cmdpath")"
           if [[ -n "$values" ]]; then compadd -- ${=values}; else _files; fi ;;
    esac
}

if [[ "$funcstack[1]" == "_%[2]s" ]]; then
    %[1]s_complete "$@"
else
    compdef %[1]s_complete %[2]s
fi
`, fn, bin)
	return b.String()
}

func fishScript(bin, fn string, nodes []completionNode) string {
	var b strings.Builder
	fmt.Fprintf(&b, `# fish completion for %[1]s, written by "%[1]s completion fish".
# Now:      %[1]s completion fish | source
# For good: %[1]s completion fish > ~/.config/fish/completions/%[1]s.fish

`, bin)
	// fish has no sh case with fallthrough; a switch per function does.
	fmt.Fprintf(&b, "function %s_words --argument-names kind cmdpath\n    switch \"$kind:$cmdpath\"\n", fn)
	for _, kind := range []struct {
		name  string
		words func(completionNode) []string
	}{
		{"commands", func(n completionNode) []string { return n.commands }},
		{"flags", func(n completionNode) []string { return n.flags }},
		{"valueflags", func(n completionNode) []string { return n.valueFlags }},
		{"modes", func(n completionNode) []string { return n.modes }},
	} {
		for _, n := range nodes {
			if ws := kind.words(n); len(ws) > 0 {
				fmt.Fprintf(&b, "        case %s\n            printf '%%s\\n' %s\n", shellQuote(kind.name+":"+n.path), quoteAll(ws))
			}
		}
	}
	b.WriteString("    end\nend\n\n")
	fmt.Fprintf(&b, "function %s_values --argument-names cmdpath flag\n    switch \"$cmdpath:$flag\"\n", fn)
	for _, n := range nodes {
		for _, f := range n.flags {
			if vs, ok := n.values[f]; ok {
				fmt.Fprintf(&b, "        case %s\n            printf '%%s\\n' %s\n", shellQuote(n.path+":"+f), quoteAll(vs))
			}
		}
	}
	b.WriteString("    end\nend\n\n")
	fmt.Fprintf(&b, `function %[1]s_complete
    set -l tokens (commandline -opc)
    set -l cur (commandline -ct)
    set -l cmdpath ""
    set -l base ""
    set -l skip 0
    for w in $tokens[2..-1]
        if test $skip = 1
            set skip 0
            continue
        end
        switch $w
            case '--'
                break
            case '-*=*'
            case '-*'
                contains -- $w (%[1]s_words valueflags "$cmdpath"); and set skip 1
                contains -- $w (%[1]s_words modes "$base"); and set cmdpath (string trim -- "$base $w")
            case '*'
                if contains -- $w (%[1]s_words commands "$cmdpath")
                    set base (string trim -- "$base $w")
                    set cmdpath $base
                end
        end
    end
    set -l prev ""
    if test (count $tokens) -gt 1
        set prev $tokens[-1]
    end
    if string match -q -- '-*' $prev; and not string match -q -- '-*=*' $prev; and contains -- $prev (%[1]s_words valueflags "$cmdpath")
        set -l values (%[1]s_values "$cmdpath" $prev)
        if test (count $values) -gt 0
            printf '%%s\n' $values
        else
            __fish_complete_path $cur
        end
        return
    end
    if string match -q -- '-*' $cur
        %[1]s_words flags "$cmdpath"
    else
        %[1]s_words commands "$cmdpath"
    end
end

complete -c %[2]s -f -a '(%[1]s_complete)'
`, fn, bin)
	return b.String()
}

func quoteAll(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = shellQuote(w)
	}
	return strings.Join(q, " ")
}
