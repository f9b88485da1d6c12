//go:build !windows && !linux

package dpcwatch

import (
	"context"

	"github.com/latlab/latlab/internal/etw"
)

func run(context.Context, Options) (*Result, error) { return nil, etw.ErrUnsupported }
