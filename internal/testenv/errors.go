package testenv

import apierrors "k8s.io/apimachinery/pkg/api/errors"

func isNotFound(err error) bool      { return apierrors.IsNotFound(err) }
func isAlreadyExists(err error) bool { return apierrors.IsAlreadyExists(err) }
