// Package lti makes the playground an LTI 1.3 tool (1EdTech LTI Core 1.3
// and LTI Advantage): a learning management system registered with it
// (a platform) launches learners and instructors into the course's class,
// a teacher picks lessons and exercises to link with Deep Linking, scores
// flow back to the course's gradebook with Assignment and Grade Services,
// and the teacher's dashboard pulls the course roster with Names and Role
// Provisioning Services.
//
// The package speaks the protocol: it checks id_tokens (signature against
// the platform's JWKS, cached and refreshed when a platform rotates its
// keys, and every claim the specification requires), signs what the tool
// sends, and sends queued scores. What it keeps (platforms, keys, logins,
// nonces, classes of courses, the score queue) is in the classroom store
// (classroom.LTIStore), shared by a server's replicas; the web package
// serves its routes.
package lti
