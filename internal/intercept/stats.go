package intercept

// Stats reports what interception did to one result, for include_metadata.
type Stats struct {
	// Truncated is true when at least one text item was cut and spilled.
	Truncated bool `json:"truncated"`
	// ImagesSaved counts image items, image blobs and base64 texts that
	// decode to an image.
	ImagesSaved int `json:"images_saved"`
	// AudioSaved counts audio items, audio blobs and base64 texts that
	// decode to audio.
	AudioSaved int `json:"audio_saved"`
	// BlobsSaved counts resource blobs and base64 texts that are neither
	// image nor audio.
	BlobsSaved int `json:"blobs_saved"`
	// ResultsSaved counts texts spilled to result_<id>.txt.
	ResultsSaved int `json:"results_saved"`
	// OriginalSizeBytes approximates the size of the result's JSON before
	// interception: the byte length of every text plus every base64 payload
	// (data and blob), without the JSON framing. It is cheap to compute and
	// close enough to show what interception saved.
	OriginalSizeBytes int `json:"original_size_bytes"`
	// Files lists every file written for this result, in content order.
	Files []string `json:"files,omitempty"`
}
