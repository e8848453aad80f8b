package testenv

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

// ServiceAccountToken creates the ServiceAccount namespace/name (and its
// namespace), binds it cluster-wide to clusterRole, and returns a bearer
// token for it from the TokenRequest API, as `kubectl create token` does.
// envtest's kube-apiserver signs and accepts service account tokens, so a
// test can log in with --token and no client certificate.
func (w *World) ServiceAccountToken(ctx context.Context, namespace, name, clusterRole string) (string, error) {
	cs, err := kubernetes.NewForConfig(w.Config)
	if err != nil {
		return "", fmt.Errorf("token for %s/%s: %w", namespace, name, err)
	}
	if err := w.CreateNamespace(ctx, namespace); err != nil {
		return "", err
	}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}
	if _, err := cs.CoreV1().ServiceAccounts(namespace).Create(ctx, sa, metav1.CreateOptions{}); err != nil && !isAlreadyExists(err) {
		return "", fmt.Errorf("ServiceAccount/%s/%s create failed: %w", namespace, name, err)
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: namespace + "-" + name + "-" + clusterRole},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: clusterRole},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: namespace, Name: name}},
	}
	if _, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil && !isAlreadyExists(err) {
		return "", fmt.Errorf("ClusterRoleBinding/%s create failed: %w", binding.Name, err)
	}
	req := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)}}
	tok, err := cs.CoreV1().ServiceAccounts(namespace).CreateToken(ctx, name, req, metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("ServiceAccount/%s/%s token request failed: %w", namespace, name, err)
	}
	return tok.Status.Token, nil
}

// CAFile writes the certificate authority of the API server's serving
// certificate to the world's directory and returns its path, for
// --certificate-authority.
func (w *World) CAFile() (string, error) {
	path := filepath.Join(w.Dir, "apiserver-ca.crt")
	if err := os.WriteFile(path, w.Config.CAData, 0o600); err != nil {
		return "", fmt.Errorf("test world: %w", err)
	}
	return path, nil
}
