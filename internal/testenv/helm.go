package testenv

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

// newHelmController returns helm-controller, not started, logging into the
// world's helm-controller directory.
func (w *World) newHelmController(opts Options) (*Controller, error) {
	if err := checkHelmAssets(w.Assets); err != nil {
		return nil, err
	}
	return &Controller{
		Name:       "helm-controller",
		Binary:     filepath.Join(w.Assets, "helm-controller"),
		Kubeconfig: w.Kubeconfig,
		Dir:        filepath.Join(w.Dir, "helm-controller"),
		Args:       slices.Clone(opts.HelmControllerArgs),
	}, nil
}

// Chart is a chart PublishChart packaged and stored on the artifact server.
type Chart struct {
	Name, Version string
	// Path is the artifact's path on the server, URL where it is served.
	Path, URL string
	// Digest is the package's sha256 digest, as source-controller writes it.
	Digest string
	Size   int64
}

// chartStore holds the charts published during one turn of a world, by name.
type chartStore struct {
	mu     sync.Mutex
	charts map[string][]Chart
}

// find returns the chart a HelmChart asks for: its name at version, or the
// last one published when version is "" or "*" (no test needs semver ranges).
func (s *chartStore) find(name, version string) (Chart, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	list := s.charts[name]
	for i := len(list) - 1; i >= 0; i-- {
		if version == "" || version == "*" || list[i].Version == version {
			return list[i], true
		}
	}
	return Chart{}, false
}

func (s *chartStore) add(c Chart) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.charts[c.Name] = append(s.charts[c.Name], c)
}

// PublishChart packages the chart directory dir (Chart.yaml at its root)
// as `helm package` lays a chart out (every file under a directory named
// after the chart), stores it on the artifact server, and from then on, for
// the rest of the test, gives it as artifact to every HelmChart asking for
// its name (and its version, or any). It needs a world of Options.Helm.
func (w *World) PublishChart(dir string) (Chart, error) {
	if w.charts == nil {
		return Chart{}, fmt.Errorf("PublishChart %s: the world does not play source-controller for HelmCharts (start it with Options.Helm)", dir)
	}
	data, err := os.ReadFile(filepath.Join(dir, "Chart.yaml"))
	if err != nil {
		return Chart{}, fmt.Errorf("chart %s: %w", dir, err)
	}
	var meta struct{ Name, Version string }
	if err := yaml.Unmarshal(data, &meta); err != nil || meta.Name == "" || meta.Version == "" {
		return Chart{}, fmt.Errorf("chart %s: Chart.yaml needs a name and a version (%v)", dir, err)
	}
	pkg, err := chartPackage(dir, meta.Name)
	if err != nil {
		return Chart{}, err
	}
	sum := sha256.Sum256(pkg)
	rel := fmt.Sprintf("helmchart/%s-%s-%s.tgz", meta.Name, meta.Version, hex.EncodeToString(sum[:8]))
	if err := os.MkdirAll(filepath.Join(w.Artifacts.dir, "helmchart"), 0o755); err != nil {
		return Chart{}, err
	}
	if err := os.WriteFile(filepath.Join(w.Artifacts.dir, rel), pkg, 0o644); err != nil {
		return Chart{}, err
	}
	c := Chart{
		Name: meta.Name, Version: meta.Version, Path: rel, URL: w.Artifacts.url + "/" + rel,
		Digest: "sha256:" + hex.EncodeToString(sum[:]), Size: int64(len(pkg)),
	}
	w.charts.add(c)
	return c, nil
}

// chartPackage packs dir into a deterministic chart archive: every file
// under name/, sorted, with fixed modes and times.
func chartPackage(dir, name string) ([]byte, error) {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("chart %s: %w", dir, err)
	}
	sort.Strings(files)
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("chart %s: %w", dir, err)
		}
		rel, _ := filepath.Rel(dir, p)
		hdr := &tar.Header{Name: path.Join(name, filepath.ToSlash(rel)), Mode: 0o644, Size: int64(len(data)), ModTime: time.Unix(0, 0), Typeflag: tar.TypeReg}
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, err
		}
		if _, err := tw.Write(data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := gz.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// serveCharts starts a new chart store for this turn and plays
// source-controller for HelmCharts until the turn ends: each HelmChart
// (helm-controller creates one per HelmRelease) whose chart was published
// gets it as its artifact, with the status source-controller writes.
func (w *World) serveCharts() {
	w.charts = &chartStore{charts: map[string][]Chart{}}
	store := w.charts
	ctx := w.Context()
	w.helpers.Add(1)
	go func() {
		defer w.helpers.Done()
		// source-controller watches; a short tick is enough here, as for
		// the simulated operators.
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			list := &sourcev1.HelmChartList{}
			if err := w.Client.List(ctx, list); err != nil {
				continue
			}
			for i := range list.Items {
				// A conflict (helm-controller updating the spec) is
				// retried on the next tick.
				_ = serveChart(ctx, w.Client, store, &list.Items[i])
			}
		}
	}()
}

// serveChart writes hc's status as source-controller would for the chart
// the store holds, or says that no such chart was published.
func serveChart(ctx context.Context, c client.Client, store *chartStore, hc *sourcev1.HelmChart) error {
	chart, ok := store.find(hc.Spec.Chart, hc.Spec.Version)
	if !ok {
		msg := fmt.Sprintf("no chart %q version %q published in the test world (World.PublishChart)", hc.Spec.Chart, hc.Spec.Version)
		if cond := apimeta.FindStatusCondition(hc.Status.Conditions, meta.ReadyCondition); cond != nil && cond.Message == msg && hc.Status.ObservedGeneration == hc.Generation {
			return nil
		}
		hc.Status.ObservedGeneration = hc.Generation
		apimeta.SetStatusCondition(&hc.Status.Conditions, metav1.Condition{
			Type: meta.ReadyCondition, Status: metav1.ConditionFalse, Reason: "ChartPullError", Message: msg, ObservedGeneration: hc.Generation,
		})
		return c.Status().Update(ctx, hc)
	}
	if a := hc.Status.Artifact; a != nil && a.Digest == chart.Digest && hc.Status.ObservedGeneration == hc.Generation {
		return nil
	}
	size := chart.Size
	hc.Status.ObservedGeneration = hc.Generation
	hc.Status.ObservedChartName = chart.Name
	hc.Status.URL = chart.URL
	hc.Status.Artifact = &meta.Artifact{
		Path: chart.Path, URL: chart.URL, Revision: chart.Version, Digest: chart.Digest,
		LastUpdateTime: metav1.Now(), Size: &size,
	}
	msg := fmt.Sprintf("pulled '%s' chart with version '%s'", chart.Name, chart.Version)
	for _, t := range []string{meta.ReadyCondition, sourcev1.ArtifactInStorageCondition} {
		apimeta.SetStatusCondition(&hc.Status.Conditions, metav1.Condition{
			Type: t, Status: metav1.ConditionTrue, Reason: sourcev1.ChartPullSucceededReason, Message: msg, ObservedGeneration: hc.Generation,
		})
	}
	return c.Status().Update(ctx, hc)
}
