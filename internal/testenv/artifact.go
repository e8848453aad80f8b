package testenv

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// ArtifactServer serves source artifacts on 127.0.0.1, standing in for
// source-controller's storage.
type ArtifactServer struct {
	dir string
	srv *http.Server
	url string
}

// StartArtifactServer serves dir on a free loopback port.
func StartArtifactServer(dir string) (*ArtifactServer, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("artifact server: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("artifact server: %w", err)
	}
	a := &ArtifactServer{dir: dir, url: "http://" + ln.Addr().String()}
	a.srv = &http.Server{Handler: http.FileServer(http.Dir(dir)), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = a.srv.Serve(ln) }()
	return a, nil
}

// Close stops the server.
func (a *ArtifactServer) Close() { _ = a.srv.Close() }

// Tarball packs dir into a deterministic tar.gz: sorted entries, fixed
// modes and times, so the same tree always yields the same bytes.
func Tarball(dir string) ([]byte, error) {
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("tarball of %s: %w", dir, err)
	}
	sort.Strings(files)
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("tarball of %s: %w", dir, err)
		}
		rel, _ := filepath.Rel(dir, path)
		hdr := &tar.Header{Name: filepath.ToSlash(rel), Mode: 0o644, Size: int64(len(data)), ModTime: time.Unix(0, 0), Typeflag: tar.TypeReg}
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

// Publish packs dir and makes it the current artifact of the GitRepository
// namespace/name, creating that GitRepository (suspended, since no
// source-controller runs) if needed. It returns the artifact revision.
func (a *ArtifactServer) Publish(ctx context.Context, c client.Client, namespace, name, dir string) (string, error) {
	data, err := Tarball(dir)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	commit := sha1.Sum(data)
	rel := fmt.Sprintf("gitrepository/%s/%s/%s.tar.gz", namespace, name, hex.EncodeToString(sum[:8]))
	if err := os.MkdirAll(filepath.Join(a.dir, filepath.Dir(rel)), 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(a.dir, rel), data, 0o644); err != nil {
		return "", err
	}
	repo := &sourcev1.GitRepository{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}
	if err := c.Get(ctx, client.ObjectKeyFromObject(repo), repo); err != nil {
		if !isNotFound(err) {
			return "", fmt.Errorf("GitRepository/%s/%s get failed: %w", namespace, name, err)
		}
		repo.Spec = sourcev1.GitRepositorySpec{
			URL:       "https://git.invalid/standup-test",
			Interval:  metav1.Duration{Duration: time.Hour},
			Reference: &sourcev1.GitRepositoryRef{Branch: "main"},
			Suspend:   true,
		}
		if err := c.Create(ctx, repo); err != nil {
			return "", fmt.Errorf("GitRepository/%s/%s create failed: %w", namespace, name, err)
		}
	}
	revision := "main@sha1:" + hex.EncodeToString(commit[:])
	size := int64(len(data))
	repo.Status.Artifact = &meta.Artifact{
		Path:           rel,
		URL:            a.url + "/" + rel,
		Revision:       revision,
		Digest:         "sha256:" + hex.EncodeToString(sum[:]),
		LastUpdateTime: metav1.Now(),
		Size:           &size,
	}
	repo.Status.ObservedGeneration = repo.Generation
	apimeta.SetStatusCondition(&repo.Status.Conditions, metav1.Condition{
		Type: meta.ReadyCondition, Status: metav1.ConditionTrue, Reason: meta.SucceededReason,
		Message: "stored artifact for revision '" + revision + "'", ObservedGeneration: repo.Generation,
	})
	if err := c.Status().Update(ctx, repo); err != nil {
		return "", fmt.Errorf("GitRepository/%s/%s status update failed: %w", namespace, name, err)
	}
	return revision, nil
}
