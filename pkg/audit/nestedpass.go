package audit

import (
	"fmt"
	"strings"
)

// nestedPassText words a same-pass deadlock one Kustomization (or more)
// removed: the consumer applies gk in the same pass as it creates the
// Kustomization that provides gk's origin (v.created). The message does
// not name the object, so that every object of the consumer shares it;
// the fix does, and groupFix speaks for all of them.
func (ix *index) nestedPassText(v verdict, gk GroupKind, p placed) (msg, fix string) {
	src := v.via.at
	applies, never := "", fmt.Sprintf("%s is never created", v.created[0])
	if v.via.secondOrder() {
		applies = fmt.Sprintf("; %s applies %s", src.ks, src.obj)
		never += fmt.Sprintf(", %s never applied", src.obj)
	}
	msg = fmt.Sprintf("%s%s, and %s applies %s in the same pass as it creates %s: the dry-run fails on the unknown kind, so %s, and the pass never converges",
		cause(v, gk), applies, p.ks, gk, ix.createdChain(v), never)
	switch {
	case v.opaque != nil:
		msg += fmt.Sprintf(", unless %s (not rendered: it builds from another source) applies the CRD", v.opaque)
	case v.via.assumed:
		msg += ", if its values (which spec.valuesFrom completes) switch the CRDs on"
	}
	return msg, fmt.Sprintf("move %s out of %s, to a Kustomization of its own with dependsOn %s%s",
		p.obj, p.ks.NamespacedName(), src.ks.NamespacedName(), guardText(v))
}

// nestedPassGroupFix is nestedPassText's fix for every object of gk.
func nestedPassGroupFix(v verdict, gk GroupKind) string {
	return fmt.Sprintf("move the %s objects listed out of the Kustomization that creates %s, to a Kustomization of their own with dependsOn %s%s",
		gk.Kind, v.via.at.ks.NamespacedName(), v.via.at.ks.NamespacedName(), guardText(v))
}

// guardText says what the provider must wait for, so that dependsOn on it
// means the CRD exists.
func guardText(v verdict) string {
	src := v.via.at
	switch {
	case !v.via.secondOrder():
		return "" // a CRD: applied, and waited for, in the first stage
	case v.guarded:
		return fmt.Sprintf(" (which already waits for %s)", src.obj)
	}
	return fmt.Sprintf("; %s needs wait: true (or a health check on %s)", src.ks.NamespacedName(), src.obj)
}

// createdChain names v.created, each with the file that defines it:
// "Kustomization/a/b (file), which creates Kustomization/c/d (file)".
func (ix *index) createdChain(v verdict) string {
	parts := make([]string, len(v.created))
	for i, id := range v.created {
		file := ""
		if def, ok := ix.res.Definitions[id]; ok {
			file = def.File
		}
		parts[i] = fmt.Sprintf("%s (%s)", id, fileOrUnknown(file))
	}
	return strings.Join(parts, ", which creates ")
}
