package printer

import (
	"strings"

	"github.com/kubestandup/standup/pkg/tiers"
	"github.com/kubestandup/standup/pkg/wait"
)

// walkNotes decides what the text printers say of a walk's events beyond
// the event itself, so that a person reads each thing once: a deadlock's
// explanation (and its advice) only when a Proof confirms it, once per
// node and reason, and a failure that repeats it says so instead of
// printing it again. The live view and the plain lines share it.
type walkNotes struct {
	// explained holds, per node and reason, the explanation printed.
	explained map[noteKey]string
	// elsewhere are the nodes whose diagnosis the command printed already
	// (WalkOptions.Explained).
	elsewhere map[tiers.ID]bool
}

type noteKey struct {
	node   tiers.ID
	reason string
}

// explainedAbove is what a line says in place of an explanation printed
// before it.
const explainedAbove = "explained above"

func newWalkNotes(elsewhere []tiers.ID) *walkNotes {
	n := &walkNotes{explained: map[noteKey]string{}, elsewhere: map[tiers.ID]bool{}}
	for _, id := range elsewhere {
		n.elsewhere[id] = true
	}
	return n
}

func keyOf(e wait.Event, reason string) noteKey {
	var id tiers.ID
	if e.Node != nil {
		id = *e.Node
	}
	return noteKey{node: id, reason: reason}
}

// diagnosis renders a diagnosis event. A suspicion is one line naming the
// missing kinds: an operator may yet create them, so advice would be
// premature. A decision (a certain proof, or the end of a wait for an operator) adds the diagnosis, the
// explanation with its advice, unless it was printed for the node before.
func (n *walkNotes) diagnosis(e wait.Event, st Styles) string {
	line := st.Warning.Render("!") + " " + nodePrefix(e) + e.Message
	if e.Diagnosis == nil {
		return line
	}
	if e.Proof == nil {
		if kinds := missingKinds(e); kinds != "" {
			line += " (missing " + kinds + ")"
		}
		return line
	}
	text := e.Diagnosis.String()
	key := keyOf(e, e.Reason)
	_, said := n.explained[key]
	n.explained[key] = text
	if said || n.elsewhere[key.node] {
		return line + " (" + explainedAbove + ")"
	}
	return line + "\n    " + strings.ReplaceAll(text, "\n", "\n    ")
}

// failure renders a failed node's message: in full the first time its
// node and reason fail, with an explanation already printed for them
// replaced by a pointer to it.
func (n *walkNotes) failure(e wait.Event) string {
	msg := firstLine(e.Message)
	key := keyOf(e, e.Reason)
	if text, ok := n.explained[key]; ok && text != "" && strings.Contains(msg, text) {
		msg = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(strings.Replace(msg, text, "", 1)), ":"))
		if msg == "" {
			return "cold-start deadlock not resolved (" + explainedAbove + ")"
		}
		return msg + " (" + explainedAbove + ")"
	}
	n.explained[key] = msg
	return msg
}

// missingKinds names the kinds a diagnosis finds missing.
func missingKinds(e wait.Event) string {
	var kinds []string
	for _, t := range e.Diagnosis.Missing {
		kinds = append(kinds, t.String())
	}
	return strings.Join(kinds, ", ")
}

func nodePrefix(e wait.Event) string {
	if e.Node == nil {
		return ""
	}
	return e.Node.String() + " "
}
