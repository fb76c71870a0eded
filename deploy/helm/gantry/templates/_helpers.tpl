{{/* The chart's name. */}}
{{- define "gantry.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The prefix of every object's name: RELEASE-gantry, or RELEASE when it already says gantry. */}}
{{- define "gantry.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 40 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 40 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 40 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* Labels of every object. */}}
{{- define "gantry.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ include "gantry.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* Selector labels of one component: call with (dict "root" $ "component" "controller"). */}}
{{- define "gantry.selectorLabels" -}}
app.kubernetes.io/name: {{ include "gantry.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "gantry.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}

{{/* The Secret with the jwt-secret, join-token and admin-password keys. */}}
{{- define "gantry.secretName" -}}
{{- default (printf "%s-secrets" (include "gantry.fullname" .)) .Values.secrets.existingSecret }}
{{- end }}

{{/* The Secret with the database user and password (and, unless CloudNativePG's, the JDBC URL). */}}
{{- define "gantry.dbSecretName" -}}
{{- if .Values.cloudnativepg.enabled }}
{{- printf "%s-app" (include "gantry.cnpgName" .) }}
{{- else }}
{{- default (printf "%s-postgresql" (include "gantry.fullname" .)) .Values.postgresql.existingSecret }}
{{- end }}
{{- end }}

{{- define "gantry.cnpgName" -}}
{{- printf "%s-db" (include "gantry.fullname" .) }}
{{- end }}

{{- define "gantry.controllerName" -}}
{{- printf "%s-controller" (include "gantry.fullname" .) }}
{{- end }}

{{- define "gantry.headlessName" -}}
{{- printf "%s-controller-headless" (include "gantry.fullname" .) }}
{{- end }}

{{/* The controllers' Service URL (the login pod's GANTRY_URL, the Ingress's backend). */}}
{{- define "gantry.serviceUrl" -}}
{{- printf "http://%s.%s.svc:%v" (include "gantry.controllerName" .) .Release.Namespace .Values.controller.service.port }}
{{- end }}

{{/*
Every controller by its own stable name, comma-separated: the agents' --controller. An agent sends its
calls to the controller that answered last and, when that one is not the leader (421) or is gone, to the
next; through the Service alone it could keep reaching a follower.
*/}}
{{- define "gantry.controllerUrls" -}}
{{- $urls := list }}
{{- range $i := until (int .Values.controller.replicas) }}
{{- $urls = append $urls (printf "http://%s-%d.%s.%s.svc:8080" (include "gantry.controllerName" $) $i (include "gantry.headlessName" $) $.Release.Namespace) }}
{{- end }}
{{- join "," $urls }}
{{- end }}
