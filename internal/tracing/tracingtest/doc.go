// Package tracingtest is an OTLP gRPC trace collector for tests: it
// listens on 127.0.0.1 and keeps every span it receives, with the
// resource attributes of its sender.
package tracingtest
