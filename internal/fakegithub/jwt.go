package fakegithub

import (
	"bytes"
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strconv"
	"strings"
	"time"
)

// GitHub lets an App JWT live at most ten minutes and recommends
// back-dating iat by up to a minute against clock drift, so a token minted
// per the docs spans up to eleven minutes between iat and exp.
const (
	jwtMaxLifetime = 10 * time.Minute
	jwtClockDrift  = 60 * time.Second
)

// verifyJWTLocked checks an "Authorization: Bearer <jwt>" header the way
// GitHub checks App JWTs and returns "" when it is acceptable, otherwise the
// message to send with the 401.
func (s *Server) verifyJWTLocked(auth string) string {
	scheme, tok, _ := strings.Cut(auth, " ")
	if auth == "" {
		return "A JSON web token could not be decoded: no Authorization header"
	}
	if !strings.EqualFold(scheme, "bearer") {
		return "A JSON web token could not be decoded: App endpoints need a Bearer JWT"
	}
	parts := strings.Split(strings.TrimSpace(tok), ".")
	if len(parts) != 3 {
		return "A JSON web token could not be decoded"
	}
	var header struct {
		Alg string `json:"alg"`
	}
	if !decodeSegment(parts[0], &header) {
		return "A JSON web token could not be decoded"
	}
	if header.Alg != "RS256" {
		return "A JSON web token could not be decoded: alg must be RS256"
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return "A JSON web token could not be decoded"
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if rsa.VerifyPKCS1v15(s.key, crypto.SHA256, digest[:], sig) != nil {
		return "A JSON web token could not be decoded: signature does not match the App's public key"
	}
	var claims struct {
		Iss json.RawMessage `json:"iss"`
		Iat json.RawMessage `json:"iat"`
		Exp json.RawMessage `json:"exp"`
	}
	if !decodeSegment(parts[1], &claims) {
		return "A JSON web token could not be decoded"
	}
	// GitHub accepts the App id (or client id) as a JSON string or number.
	iss := strings.Trim(string(claims.Iss), `"`)
	if iss != strconv.FormatInt(s.appID, 10) {
		return "'Issuer' claim ('iss') does not name this App"
	}
	// GitHub rejects fractional timestamps, which is why clients truncate
	// them; ParseInt models that.
	iat, err := strconv.ParseInt(string(claims.Iat), 10, 64)
	if err != nil {
		return "'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued"
	}
	exp, err := strconv.ParseInt(string(claims.Exp), 10, 64)
	if err != nil {
		return "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires"
	}
	now := s.now()
	switch {
	case time.Unix(iat, 0).After(now.Add(jwtClockDrift)):
		return "'Issued at' claim ('iat') must be an Integer representing a time in the past"
	case !time.Unix(exp, 0).After(now):
		return "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires"
	case exp <= iat:
		return "'Expiration time' claim ('exp') must be after 'Issued at' claim ('iat')"
	case time.Unix(exp, 0).After(now.Add(jwtMaxLifetime+time.Second)) || time.Duration(exp-iat)*time.Second > jwtMaxLifetime+jwtClockDrift:
		return "'Expiration time' claim ('exp') is too far in the future"
	}
	return ""
}

func decodeSegment(seg string, v any) bool {
	b, err := base64.RawURLEncoding.DecodeString(seg)
	if err != nil {
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return dec.Decode(v) == nil
}
