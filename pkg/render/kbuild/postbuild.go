package kbuild

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"

	"github.com/kubestandup/standup/internal/input"
	"github.com/kubestandup/standup/pkg/tiers"
)

// PostBuild runs variable substitution on the output of the Kustomization
// id when it declares spec.postBuild, as kustomize-controller does. Its
// substituteFrom objects are looked up in vars; those in encrypted are
// SOPS-encrypted, their values unknown offline (not empty). It returns the
// notes of an incomplete substitution (references not found, variables
// without a value), also when it fails; an object whose substitution would
// exceed the bounds of Flux's envsubst fails it with an
// *input.LimitError.
func (b *Builder) PostBuild(id tiers.ID, ks *kustomizev1.Kustomization, vars VarIndex, encrypted map[tiers.ID]bool, out *Output) ([]string, error) {
	if ks.Spec.PostBuild == nil {
		return nil, nil
	}
	values, missing := postBuildVars(ks, vars)
	warnings, unknownFrom := missingRefs(id, ks, missing, encrypted)
	always := ks.GetSubstituteStrategy() == kustomizev1.SubstituteStrategyAlways
	// Flux substitutes when it has variables; a Secret or ConfigMap the
	// offline view cannot read would give it some.
	if len(values) == 0 && !always && len(unknownFrom) == 0 {
		return warnings, nil
	}
	shown, err := b.substituteAll(id, values, out.objects)
	if err != nil {
		return warnings, err
	}
	return append(warnings, unresolvedWarnings(id, shown, unknownFrom)...), nil
}

// missingRefs words the substituteFrom references of ks that are missing
// or encrypted, and names those whose variables may therefore lack a value
// offline (unknownFrom).
func missingRefs(id tiers.ID, ks *kustomizev1.Kustomization, missing []tiers.ID, encrypted map[tiers.ID]bool) (warnings, unknownFrom []string) {
	// Where a variable may come from a Secret or ConfigMap the offline view
	// cannot read, its value is unknown, not empty.
	for _, ref := range ks.Spec.PostBuild.SubstituteFrom {
		if id := (tiers.ID{Kind: ref.Kind, Namespace: ks.Namespace, Name: ref.Name}); encrypted[id] || slices.Contains(missing, id) {
			unknownFrom = append(unknownFrom, id.String())
		}
	}
	for _, ref := range missing {
		if encrypted[ref] {
			warnings = append(warnings, fmt.Sprintf("%s: substituteFrom %s is SOPS-encrypted; its variables are not available offline", id, ref))
			continue
		}
		warnings = append(warnings, fmt.Sprintf("%s: substituteFrom %s not found in the repository", id, ref))
	}
	return warnings, unknownFrom
}

// substituteAll substitutes vars in every object of a build that does not
// opt out, and returns how each unresolved variable is written, over all
// the objects.
func (b *Builder) substituteAll(id tiers.ID, vars map[string]string, objects []built) (map[string][]string, error) {
	// Flux checks the names before each object, and fails the first
	// whatever it holds; so does an invalid name here.
	namesErr := validVarNames(vars)
	// An object without a variable is skipped (unchangedBySubstitution),
	// unless substitution fails on any object for a bad variable name.
	skip := !b.substituteAlways && namesErr == nil
	shown := map[string][]string{}
	for i := range objects {
		m := &objects[i]
		if substitutionDisabled(m.Object) || (skip && unchangedBySubstitution(m)) {
			continue
		}
		unresolved, written, err := b.substituteOne(m, vars, namesErr)
		var limit *substituteLimit
		if errors.As(err, &limit) {
			return nil, &input.LimitError{File: OrUnknown(m.File), Reason: fmt.Sprintf("postBuild substitution of %s: %s; disable it for the object (%s: disabled) or split it",
				describe(m.Object), limit, substituteKey)}
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", id, err)
		}
		for _, name := range unresolved {
			forms := written[name]
			if len(forms) == 0 {
				forms = []string{"${" + name + "}"}
			}
			for _, f := range forms {
				if !slices.Contains(shown[name], f) {
					shown[name] = append(shown[name], f)
				}
			}
		}
	}
	return shown, nil
}

// substituteOne substitutes vars in one object (whose names namesErr
// refuses, when set) and returns its unresolved variables, as substitute
// does. Substitution that leaves the text as it was leaves the object as
// it was, unless every shortcut is off: the text is the object's own
// printing, which parses back to it (unchangedBySubstitution), and most
// objects with a variable offline hold only variables without a value.
func (b *Builder) substituteOne(m *built, vars map[string]string, namesErr error) ([]string, map[string][]string, error) {
	data, err := m.substitutionText(b.substituteAlways)
	if err != nil {
		return nil, nil, err // as a failed build says it
	}
	if namesErr != nil {
		return nil, nil, fmt.Errorf("post build failed for %s (%s): %w", describe(m.Object), OrUnknown(m.File), namesErr)
	}
	out, unresolved, written, err := substituteText(data, vars)
	if err == nil && (b.substituteAlways || out != string(data)) {
		var obj map[string]any
		if obj, err = decodeSubstituted(out); err == nil {
			m.Object.Object = obj
		}
	}
	var limit *substituteLimit
	if err != nil && !errors.As(err, &limit) {
		return nil, nil, fmt.Errorf("post build failed for %s (%s): %w", describe(m.Object), OrUnknown(m.File), err)
	}
	return unresolved, written, err
}

// unresolvedWarnings words each variable left as written (shown: how it is
// written), naming the objects it may come from when there are such.
func unresolvedWarnings(id tiers.ID, shown map[string][]string, unknownFrom []string) []string {
	var warnings []string
	for name, forms := range shown {
		slices.Sort(forms)
		if len(unknownFrom) > 0 {
			warnings = append(warnings, fmt.Sprintf("%s: variable ${%s} has no value offline (it may come from %s); shown as %s here", id, name, strings.Join(unknownFrom, ", "), strings.Join(forms, ", ")))
			continue
		}
		warnings = append(warnings, fmt.Sprintf("%s: variable ${%s} is not defined: Flux would substitute an empty string; shown as %s here", id, name, strings.Join(forms, ", ")))
	}
	return warnings
}
