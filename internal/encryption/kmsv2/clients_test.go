package kmsv2

import (
	"context"

	"google.golang.org/grpc"
	kmsapi "k8s.io/kms/apis/v2"
)

// racingClient changes what the plugin does between calls, or what the
// provider gets back, where the plugin itself cannot.
type racingClient struct {
	kmsapi.KeyManagementServiceClient
	beforeEncrypt  func()
	shortPlaintext bool
}

func (c *racingClient) Encrypt(ctx context.Context, in *kmsapi.EncryptRequest, opts ...grpc.CallOption) (*kmsapi.EncryptResponse, error) {
	if c.beforeEncrypt != nil {
		c.beforeEncrypt()
	}
	return c.KeyManagementServiceClient.Encrypt(ctx, in, opts...)
}

func (c *racingClient) Decrypt(ctx context.Context, in *kmsapi.DecryptRequest, opts ...grpc.CallOption) (*kmsapi.DecryptResponse, error) {
	resp, err := c.KeyManagementServiceClient.Decrypt(ctx, in, opts...)
	if err == nil && c.shortPlaintext {
		resp.Plaintext = resp.Plaintext[:16]
	}
	return resp, err
}
