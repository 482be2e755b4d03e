package api

import (
	"context"
	"net/http"
	"net/url"
	"time"
)

// SubmitResv creates a reservation; like Submit it retries a lost reply
// for up to retryFor with the same token.
func (c *Client) SubmitResv(ctx context.Context, req *ResvSubmitRequest, retryFor time.Duration) (string, error) {
	deadline := time.Now().Add(retryFor)
	for {
		var out ResvSubmitResponse
		err := c.Do(ctx, http.MethodPost, "/resvs", nil, req, &out)
		if err == nil {
			return out.ID, nil
		}
		if _, lost := err.(*LostReplyError); !lost || time.Now().After(deadline) {
			return "", err
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// Resvs lists reservations; with ids, each must exist. gone also returns
// tombstones (denied or deleted ones), which pbs_rsub -I needs.
func (c *Client) Resvs(ctx context.Context, ids []string, gone bool) (*ResvsResponse, error) {
	q := url.Values{}
	for _, id := range ids {
		q.Add("id", id)
	}
	if gone {
		q.Set("gone", "1")
	}
	var out ResvsResponse
	if err := c.Do(ctx, http.MethodGet, "/resvs", q, nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// DeleteResv deletes a reservation with its queue and jobs (pbs_rdel).
func (c *Client) DeleteResv(ctx context.Context, id string) error {
	return c.Do(ctx, http.MethodPost, "/resvs/"+url.PathEscape(id)+"/delete", nil, struct{}{}, nil)
}

// AlterResv changes a reservation (pbs_ralter).
func (c *Client) AlterResv(ctx context.Context, id string, req *ResvAlterRequest) (*ResvAlterResponse, error) {
	var out ResvAlterResponse
	if err := c.Do(ctx, http.MethodPost, "/resvs/"+url.PathEscape(id)+"/alter", nil, req, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
