package client

import (
	"context"
	"net/http"

	"github.com/agentty/agentty/internal/console/api"
)

// WebLogin asks for a one-time login URL of the web view.
func (c *Client) WebLogin(ctx context.Context) (api.WebLogin, error) {
	var l api.WebLogin
	err := c.json(ctx, http.MethodPost, api.WebLoginPath, &l)
	return l, err
}
