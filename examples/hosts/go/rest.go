package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// RestFace speaks the REST face of `mcp-bridge serve --http`: plain HTTP and JSON.
type RestFace struct {
	base       string
	token      string
	adminToken string
	client     *http.Client
}

func NewRestFace(base, token, adminToken string) *RestFace {
	return &RestFace{
		base:       strings.TrimRight(base, "/"),
		token:      token,
		adminToken: adminToken,
		client:     &http.Client{Timeout: 60 * time.Second},
	}
}

func (f *RestFace) request(method, path string, body any, token string, into any) error {
	var reader io.Reader
	if body != nil {
		encoded, err := json.Marshal(body)
		if err != nil {
			return err
		}
		reader = bytes.NewReader(encoded)
	}
	request, err := http.NewRequest(method, f.base+path, reader)
	if err != nil {
		return err
	}
	request.Header.Set("accept", "application/json")
	if body != nil {
		request.Header.Set("content-type", "application/json")
	}
	if token != "" {
		request.Header.Set("authorization", "Bearer "+token)
	}
	response, err := f.client.Do(request)
	if err != nil {
		return err
	}
	defer response.Body.Close()
	data, err := io.ReadAll(io.LimitReader(response.Body, 64<<20))
	if err != nil {
		return err
	}
	if response.StatusCode != http.StatusOK {
		// Every failure of the REST face is JSON: {"error": {"code", "message"}}.
		var failure struct {
			Error struct {
				Code    string `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		_ = json.Unmarshal(data, &failure)
		retryAfter, _ := strconv.Atoi(response.Header.Get("retry-after"))
		if failure.Error.Code == "" {
			failure.Error.Code = fmt.Sprintf("HTTP_%d", response.StatusCode)
			failure.Error.Message = response.Status
		}
		return &GatewayError{response.StatusCode, failure.Error.Code, failure.Error.Message, retryAfter}
	}
	return json.Unmarshal(data, into)
}

func (f *RestFace) ListTools() ([]ToolDefinition, error) {
	var listed struct {
		Tools []ToolDefinition `json:"tools"`
	}
	err := f.request("GET", "/tools?format=mcp", nil, f.token, &listed)
	return listed.Tools, err
}

func (f *RestFace) Call(name string, arguments map[string]any) (*CallResult, error) {
	var result CallResult
	err := f.request("POST", "/tools/"+url.PathEscape(name), arguments, f.token, &result)
	return &result, err
}

func (f *RestFace) Status() (*Status, error) {
	if f.adminToken == "" {
		return nil, nil
	}
	var status Status
	err := f.request("GET", "/status", nil, f.adminToken, &status)
	return &status, err
}

func (f *RestFace) Close() {}
