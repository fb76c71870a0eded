package io.gantry.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockServletContext;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.support.StaticWebApplicationContext;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.HandlerExecutionChain;
import org.springframework.web.servlet.HandlerMapping;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;
import org.springframework.web.util.ServletRequestPathUtils;

/**
 * The agents' routes tried first find what Spring's search over every route finds, with the same path
 * variables and matched pattern, and leave every other request to that search.
 */
class AgentRoutesTests {

    @RestController
    static class Routes {
        @PostMapping("/api/v1/agents/{node}/poll")
        String poll(@PathVariable String node) {
            return node;
        }

        @GetMapping("/api/v1/agents/{node}/poll")
        String pollRead(@PathVariable String node) {
            return node;
        }

        @PostMapping("/api/v1/agents/{node}/reports")
        String reports(@PathVariable String node) {
            return node;
        }

        @PostMapping("/api/v1/agents/{node}/{what}")
        String anything(@PathVariable String node, @PathVariable String what) {
            return what;
        }

        @PostMapping("/api/v1/agents/register")
        String register() {
            return "";
        }

        @PostMapping(path = "/api/v1/agents/{node}/output", consumes = "text/plain")
        String output(@PathVariable String node) {
            return node;
        }
    }

    @Test
    void agentsRoutesFindWhatSpringsSearchFinds() throws Exception {
        RequestMappingHandlerMapping plain = mapping(new RequestMappingHandlerMapping());
        AgentRoutes.Mapping first = mapping(new AgentRoutes.Mapping());

        assertThat(first.hotRoutes()).as("both agent routes are known").isEqualTo(AgentRoutes.HOT.size());
        for (String[] call : List.of(new String[] {"POST", "/api/v1/agents/gpu-001/poll"},
                new String[] {"POST", "/api/v1/agents/gpu-001/reports"},
                new String[] {"POST", "/api/v1/agents/register/poll"},
                new String[] {"GET", "/api/v1/agents/gpu-001/poll"},
                new String[] {"POST", "/api/v1/agents/gpu-001/step-reports"},
                new String[] {"POST", "/api/v1/agents/register"},
                new String[] {"POST", "/api/v1/agents/gpu-001/output"},
                new String[] {"POST", "/api/v1/agents/a%2Fb/poll"},
                new String[] {"POST", "/api/v1/agents/gpu-001/poll/"},
                new String[] {"POST", "/api/v1/jobs/42/poll"})) {
            MockHttpServletRequest a = request(call[0], call[1]);
            MockHttpServletRequest b = request(call[0], call[1]);
            HandlerExecutionChain expected = plain.getHandler(a);
            HandlerExecutionChain found = first.getHandler(b);
            String what = call[0] + " " + call[1];
            if (expected == null) {
                assertThat(found).as(what).isNull();
                continue;
            }
            assertThat(found).as(what).isNotNull();
            assertThat(((HandlerMethod) found.getHandler()).getMethod())
                    .as(what).isEqualTo(((HandlerMethod) expected.getHandler()).getMethod());
            for (String attribute : List.of(HandlerMapping.URI_TEMPLATE_VARIABLES_ATTRIBUTE,
                    HandlerMapping.BEST_MATCHING_PATTERN_ATTRIBUTE, HandlerMapping.PATH_WITHIN_HANDLER_MAPPING_ATTRIBUTE)) {
                assertThat(b.getAttribute(attribute)).as(what + " " + attribute).isEqualTo(a.getAttribute(attribute));
            }
        }
    }

    @Test
    void aPollsNodeIsItsPathVariable() throws Exception {
        MockHttpServletRequest request = request("POST", "/api/v1/agents/gpu-007/poll");

        HandlerExecutionChain found = mapping(new AgentRoutes.Mapping()).getHandler(request);

        assertThat(((HandlerMethod) found.getHandler()).getMethod().getName()).isEqualTo("poll");
        assertThat(request.getAttribute(HandlerMapping.URI_TEMPLATE_VARIABLES_ATTRIBUTE))
                .isEqualTo(java.util.Map.of("node", "gpu-007"));
        assertThat(request.getAttribute(HandlerMapping.BEST_MATCHING_PATTERN_ATTRIBUTE))
                .isEqualTo("/api/v1/agents/{node}/poll");
    }

    private static <M extends RequestMappingHandlerMapping> M mapping(M mapping) {
        StaticWebApplicationContext context = new StaticWebApplicationContext();
        context.setServletContext(new MockServletContext());
        context.registerSingleton("routes", Routes.class);
        context.refresh();
        mapping.setApplicationContext(context);
        mapping.afterPropertiesSet();
        return mapping;
    }

    private static MockHttpServletRequest request(String method, String path) {
        MockHttpServletRequest request = new MockHttpServletRequest(method, path);
        ServletRequestPathUtils.parseAndCache(request);
        return request;
    }
}
